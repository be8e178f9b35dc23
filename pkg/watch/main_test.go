package watch

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if a test leaves a goroutine behind (a stream
// nobody closed, a Run nobody waited for).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
