package parallel

import (
	"runtime"

	"golang.org/x/sync/errgroup"
)

// MinItems is how many items it takes before a goroutine per core pays
// (each with a decoder of its own, which learns its own codec).
const MinItems = 2048

// Workers is how many goroutines n items are worth: one per core
// (GOMAXPROCS) when there are MinItems or more, else one.
func Workers(n int) int {
	if n < MinItems {
		return 1
	}
	return runtime.GOMAXPROCS(0)
}

// Chunks splits [0, n) into workers even chunks and runs f(w, lo, hi) for
// the w-th, [lo, hi), each on a goroutine of its own (the caller's when
// there is one worker), and returns the first error.
func Chunks(n, workers int, f func(w, lo, hi int) error) error {
	if workers <= 1 {
		return f(0, 0, n)
	}
	chunk := (n + workers - 1) / workers
	var g errgroup.Group
	for w := range workers {
		lo, hi := min(w*chunk, n), min((w+1)*chunk, n)
		g.Go(func() error { return f(w, lo, hi) })
	}
	return g.Wait()
}
