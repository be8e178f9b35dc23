//go:build linux || darwin

package output

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// StopOnClosedOutput calls stop as soon as the reader of w (a pipe) goes
// away, so that `kubectl reflect watch ... | head -1` ends at once even when
// no further event would be written to notice it.
func StopOnClosedOutput(ctx context.Context, w any, stop context.CancelFunc) {
	f, ok := w.(*os.File)
	if !ok {
		return
	}
	if fi, err := f.Stat(); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return
	}
	fd := int(f.Fd())
	go func() {
		fds := []unix.PollFd{{Fd: int32(fd), Events: 0}}
		for ctx.Err() == nil {
			n, err := unix.Poll(fds, 200)
			if err != nil && err != unix.EINTR {
				return
			}
			if n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0 {
				stop()
				return
			}
		}
	}()
}
