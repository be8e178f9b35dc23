package cli

import (
	"errors"
	"fmt"
	"testing"
)

// TestExitCode: nil exits 0, an interruption 130 (wrapped too), an
// ExitStatus its code (WithExitCode keeps one already there), anything else 1.
func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("boom"), 1},
		{ErrReported, 1},
		{ErrInterrupted, 130},
		{fmt.Errorf("get: %w", ErrInterrupted), 130},
		{errors.Join(ErrInterrupted, errors.New("stopping the profile")), 130},
		{Exit(1), 1},
		{WithExitCode(2, errors.New("boom")), 2},
		{fmt.Errorf("diff: %w", WithExitCode(2, ErrReported)), 2},
		{WithExitCode(2, Exit(1)), 1},
		{WithExitCode(2, fmt.Errorf("x: %w", ErrInterrupted)), 130},
		{errors.Join(Exit(1), errors.New("stopping the profile")), 1},
	}
	for _, tc := range tests {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
