package daemon

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// TestAcquire: a held lock refuses a second daemon, naming the first; once
// released, the next one takes it and the stale files are gone.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	first, err := Acquire(dir, "id")
	if err != nil {
		t.Fatal(err)
	}
	info := Info{PID: 42, Server: "https://127.0.0.1:1", Kinds: []string{"configmaps"}, Started: time.Unix(0, 0)}
	if err := first.Publish([]byte("kubeconfig"), info); err != nil {
		t.Fatal(err)
	}
	if !Held(first.Files) {
		t.Error("Held = false while a daemon holds the lock")
	}
	_, err = Acquire(dir, "id")
	if !errors.Is(err, ErrRunning) || !strings.Contains(err.Error(), "pid 42 at https://127.0.0.1:1, caching configmaps") {
		t.Errorf("second Acquire: %v, want ErrRunning naming pid 42", err)
	}
	if other, err := Acquire(dir, "other"); err != nil {
		t.Errorf("Acquire of another identity: %v", err)
	} else {
		other.Release()
	}
	freed := make(chan error, 1)
	go func() { freed <- WaitFreed(first.Files) }()
	first.fl.Close() // as if killed: the kernel frees the lock, the files stay
	if err := <-freed; err != nil {
		t.Errorf("WaitFreed: %v", err)
	}
	if Held(first.Files) {
		t.Error("Held = true after the lock was freed")
	}
	next, err := Acquire(dir, "id")
	if err != nil {
		t.Fatalf("Acquire after the first died: %v", err)
	}
	defer next.Release()
	for _, p := range []string{next.Info, next.Kubeconfig} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stale %s kept: %v", p, err)
		}
	}
}
