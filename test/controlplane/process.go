package controlplane

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// process is one running component.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has exited and been reaped
	waitErr error         // cmd.Wait's result, valid after done
}

// startProcess starts a component through sp with env added to the
// harness's environment, appending its output to logDir/name.log (and to
// extra, if set).
func startProcess(sp *spawner, name, path string, args, env []string, dir, logDir string, extra io.Writer) (*process, error) {
	logPath := filepath.Join(logDir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s log: %w", name, err)
	}
	fmt.Fprintf(f, "=== %s %s %s\n", time.Now().Format(time.RFC3339Nano), path, strings.Join(args, " "))

	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = append(componentEnv(os.Environ()), env...)
	var out io.Writer = f
	if extra != nil {
		out = io.MultiWriter(f, extra)
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 2 * time.Second // bounds output copying if a pipe stays open
	if err := sp.start(cmd); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

// componentEnv drops variables that would reconfigure a component behind the
// harness's back (etcd reads ETCD_* as flags, kwok KWOK_*).
func componentEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "ETCD_") || strings.HasPrefix(kv, "KWOK_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (p *process) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes how the process ended, with the tail of its log.
func (p *process) exitError() error {
	return fmt.Errorf("%s exited: %v\n%s", p.name, p.waitErr, p.logTail())
}

// stop sends SIGTERM to the process group, SIGKILL after grace or when ctx
// ends, and waits until the process has been reaped.
func (p *process) stop(ctx context.Context, grace time.Duration) {
	if p.exited() {
		return
	}
	_ = terminate(p.cmd)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return
	case <-t.C:
	case <-ctx.Done():
	}
	_ = kill(p.cmd)
	<-p.done
}

// logTail returns the last lines of the process's log, for error messages.
func (p *process) logTail() string {
	return fmt.Sprintf("--- last lines of %s ---\n%s", p.logPath, tailFile(p.logPath, 40, 8<<10))
}
