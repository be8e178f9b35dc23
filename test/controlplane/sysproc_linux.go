package controlplane

import (
	"errors"
	"os/exec"
	"syscall"
)

// sysProcAttr puts the child in its own process group and has the kernel
// SIGKILL it when the spawning thread exits (see spawner).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// terminate sends SIGTERM to the child's process group.
func terminate(cmd *exec.Cmd) error { return signalGroup(cmd, syscall.SIGTERM) }

// kill sends SIGKILL to the child's process group.
func kill(cmd *exec.Cmd) error { return signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	// With Setpgid the child leads a group whose id is its pid.
	err := syscall.Kill(-cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// processAlive reports whether a process with this pid exists (and is not
// yet reaped).
func processAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

// groupAlive reports whether any process is left in the process group pgid.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
