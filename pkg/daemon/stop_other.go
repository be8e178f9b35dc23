//go:build !unix

package daemon

import "os"

// stopProcess ends the process pid. Windows has no SIGTERM to ask with:
// the daemon is terminated, the system frees its lock, and the files it
// leaves are found stale (their lock free) and replaced by the next one.
func stopProcess(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
