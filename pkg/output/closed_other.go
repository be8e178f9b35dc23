//go:build !linux && !darwin

package output

import "context"

// StopOnClosedOutput is a no-op where poll(2) is not available; a closed
// pipe is then noticed at the next write.
func StopOnClosedOutput(context.Context, any, context.CancelFunc) {}
