package watch

import (
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// DefaultBackoff is client-go's reflector backoff: 800 ms doubling up to
// 30 s, each delay with up to 100% jitter.
var DefaultBackoff = wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Jitter: 1, Cap: 30 * time.Second, Steps: 1 << 30}

// backoff hands out growing delays and starts over after progress.
type backoff struct {
	initial wait.Backoff
	current wait.Backoff
}

func newBackoff(b wait.Backoff) *backoff { return &backoff{initial: b, current: b} }

// next is the delay before the next attempt after err: the exponential step,
// or the server's Retry-After when that is longer.
func (b *backoff) next(err error) time.Duration {
	d := b.current.Step()
	if ra := retryAfter(err); ra > d {
		d = ra
	}
	return d
}

func (b *backoff) reset() { b.current = b.initial }
