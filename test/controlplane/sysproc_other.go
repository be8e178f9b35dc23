//go:build !linux

package controlplane

import (
	"os"
	"os/exec"
	"syscall"
)

// sysProcAttr has no process group or parent-death signal outside Linux:
// Stop still kills and waits for every child, but a crashed test binary may
// leave them running.
func sysProcAttr() *syscall.SysProcAttr { return nil }

// terminate asks the child to exit (an error where signals are unsupported,
// after which Stop kills it when the grace period ends).
func terminate(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Signal(syscall.SIGTERM)
}

// kill kills the child.
func kill(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := cmd.Process.Kill()
	if err == os.ErrProcessDone {
		return nil
	}
	return err
}

// processAlive reports whether a process with this pid exists.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// groupAlive is processAlive: there are no process groups here.
func groupAlive(pgid int) bool { return processAlive(pgid) }
