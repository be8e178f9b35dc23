//go:build unix

package daemon

import "syscall"

// stopProcess asks the process pid to stop with SIGTERM: a daemon ends
// its watches and removes its files before it exits.
func stopProcess(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
