//go:build !unix

package controlplane

import "context"

// lockFile is a no-op without flock: concurrent builders then build twice,
// and the atomic rename in buildInto still leaves one complete set.
func lockFile(ctx context.Context, path string) (func(), error) {
	return func() {}, ctx.Err()
}
