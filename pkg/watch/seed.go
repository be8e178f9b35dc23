package watch

import "context"

// Seed is a state of the resource known from elsewhere (the record an
// earlier run of the process kept): every object at ResourceVersion, then
// what changed after it up to Until, if anything.
type Seed[T any] struct {
	Items           []T
	ResourceVersion string
	// Changes follow the state in order: Apply and Delete events, each
	// with its ResourceVersion.
	Changes []Event[T]
	// Until is where the changes bring the state (the record is complete
	// to it; the watch resumes there); "" is ResourceVersion.
	Until string
}

// Seeder returns the seed a Watcher starts from, and false when there is
// none (the watcher lists as usual). It is asked once, before the first
// list; it reports its own errors and returns false on them.
type Seeder[T any] func(ctx context.Context) (Seed[T], bool)

// WithSeed makes w start from what seed returns instead of a first list:
// its objects are emitted as that list (Init, InitApply each, InitDone at
// its ResourceVersion), its changes as live events, then a Bookmark at
// Until, and the watch resumes from Until (or ResourceVersion), so a
// process restarted within the server's watch window reads only what
// changed meanwhile. A server that no longer holds that resourceVersion
// answers 410 Gone, and the watcher relists as after any 410 (OnRelist is
// told): a consumer that keeps state then finds what changed, deletions
// included, as after any relist. It returns w.
func (w *Watcher[T]) WithSeed(seed Seeder[T]) *Watcher[T] {
	w.seed = seed
	return w
}

// seeded emits the seed as a list and makes the machine watch from its
// resourceVersion; false when there is no seed (the machine lists).
func (m *machine[T]) seeded(ctx context.Context) (bool, error) {
	seeder := m.w.seed
	if seeder == nil || m.seedAsked {
		return false, nil
	}
	m.seedAsked = true
	s, ok := seeder(ctx)
	if !ok || s.ResourceVersion == "" {
		return false, nil
	}
	if err := m.send(ctx, Event[T]{Type: Init, Size: len(s.Items)}); err != nil {
		return true, err
	}
	for _, obj := range s.Items {
		if err := m.send(ctx, Event[T]{Type: InitApply, Object: obj}); err != nil {
			return true, err
		}
	}
	m.rv, m.state = s.ResourceVersion, StateWatchPending
	if err := m.send(ctx, Event[T]{Type: InitDone, ResourceVersion: m.rv}); err != nil {
		return true, err
	}
	for _, ev := range s.Changes {
		if err := m.send(ctx, ev); err != nil {
			return true, err
		}
	}
	if s.Until != "" && s.Until != m.rv {
		m.rv = s.Until
		return true, m.send(ctx, Event[T]{Type: Bookmark, ResourceVersion: m.rv})
	}
	return true, nil
}
