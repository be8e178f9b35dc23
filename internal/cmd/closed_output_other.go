//go:build !linux && !darwin

package cmd

import "context"

// stopOnClosedOutput is a no-op where poll(2) is not available; a closed
// pipe is then noticed at the next write.
func stopOnClosedOutput(context.Context, any, context.CancelFunc) {}
