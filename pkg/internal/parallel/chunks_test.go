package parallel

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestChunks(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{{0, 1}, {5, 1}, {5, 2}, {7, 3}, {2, 4}, {1000, 2}} {
		seen := make([]atomic.Int32, tc.n)
		var calls atomic.Int32
		err := Chunks(tc.n, tc.workers, func(w, lo, hi int) error {
			calls.Add(1)
			if w < 0 || w >= max(tc.workers, 1) || lo > hi {
				t.Errorf("n %d, %d workers: f(%d, %d, %d)", tc.n, tc.workers, w, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			return nil
		})
		if err != nil || int(calls.Load()) != max(tc.workers, 1) {
			t.Errorf("n %d, %d workers: %d calls, %v", tc.n, tc.workers, calls.Load(), err)
		}
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n %d, %d workers: item %d seen %d times", tc.n, tc.workers, i, seen[i].Load())
			}
		}
	}
	boom := errors.New("boom")
	if err := Chunks(10, 2, func(w, _, _ int) error {
		if w == 1 {
			return boom
		}
		return nil
	}); !errors.Is(err, boom) {
		t.Errorf("a failing chunk: %v", err)
	}
	if Workers(MinItems-1) != 1 {
		t.Error("Workers below MinItems is not 1")
	}
}
