package contexts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// ErrReported is a context's failure that the context has already
// written on its stderr: Report writes nothing more for it.
var ErrReported = errors.New("failed (reported on its stderr)")

// Set is the contexts one command runs in, in the order given, each with
// a stderr of its own: the command's, every line after "context NAME: ",
// whole lines only, so that contexts writing at once read line by line.
type Set struct {
	names   []string
	errOuts []*PrefixWriter
	// OnAllFailed, when not nil, is called once, by Go, as soon as every
	// context has failed: the command has nothing left to wait for.
	OnAllFailed func()
}

// New is the Set of names whose stderrs write to errOut.
func New(names []string, errOut io.Writer) *Set {
	p := NewPrefixer(errOut)
	s := &Set{names: names}
	for _, name := range names {
		s.errOuts = append(s.errOuts, p.Writer("context "+name+": "))
	}
	return s
}

// ErrOut is the i-th context's stderr.
func (s *Set) ErrOut(i int) *PrefixWriter { return s.errOuts[i] }

// Streams is streams with the i-th context's stderr (In and Out are
// shared: what a context prints on Out is the command's to merge).
func (s *Set) Streams(i int, streams genericiooptions.IOStreams) genericiooptions.IOStreams {
	return genericiooptions.IOStreams{In: streams.In, Out: streams.Out, ErrOut: s.errOuts[i]}
}

// Wrap names context name in err: "context NAME: err"; nil stays nil.
func Wrap(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("context %s: %w", name, err)
}

// Each calls f for each of names in order, one after the other, and
// stops at the first that fails: its error, naming the context (Wrap), is
// Each's. It is for what must be whole before anything runs (flags
// resolved in each context, daemons found before one is stopped).
func Each(names []string, f func(i int, name string) error) error {
	for i, name := range names {
		if err := f(i, name); err != nil {
			return Wrap(name, err)
		}
	}
	return nil
}

// Each is Each of s's names.
func (s *Set) Each(f func(i int, name string) error) error { return Each(s.names, f) }

// Running is the contexts Go started.
type Running struct {
	set    *Set
	wg     sync.WaitGroup
	mu     sync.Mutex
	errs   []error
	failed int
}

// Go runs f for every context at once, each in a goroutine of its own
// with its index and name, and returns without waiting (Wait waits). A
// context's failure is its own: the others run on. f must return once
// ctx ends; Go itself never cancels ctx (OnAllFailed may). Each context's
// stderr is flushed when its f returns.
func (s *Set) Go(ctx context.Context, f func(ctx context.Context, i int, name string) error) *Running {
	r := &Running{set: s, errs: make([]error, len(s.names))}
	for i, name := range s.names {
		r.wg.Go(func() {
			err := f(ctx, i, name)
			s.errOuts[i].Flush()
			if err != nil {
				r.fail(i, err)
			}
		})
	}
	return r
}

func (r *Running) fail(i int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[i] = err
	if r.failed++; r.failed == len(r.errs) && r.set.OnAllFailed != nil {
		r.set.OnAllFailed()
	}
}

// Wait waits until every context's f has returned, and returns their
// errors, one per context in the order of the Set (nil for those that
// did not fail).
func (r *Running) Wait() []error {
	r.wg.Wait()
	return r.errs
}

// Failed says whether a context has failed (after Wait: whether one
// did).
func (r *Running) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed > 0
}

// Report writes the i-th context's err once on its stderr, as
// `error: ...` after its name (nothing when err is nil or ErrReported),
// and says whether the context failed.
func (s *Set) Report(i int, err error) bool {
	if err == nil {
		return false
	}
	if !errors.Is(err, ErrReported) {
		fmt.Fprintf(s.errOuts[i], "error: %v\n", err)
		s.errOuts[i].Flush()
	}
	return true
}
