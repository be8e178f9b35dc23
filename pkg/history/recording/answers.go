package recording

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// answers is what a recording daemon's history answers through the API
// (serve.History): an exact LIST at, and a WATCH from, a resourceVersion
// that neither its stores nor the API server hold any more. Secrets are
// not answered from it unless recorded in full (their values are hashed).
type answers struct {
	r *Recording
}

// maxReplay bounds the changes a watch is replayed from the history: more
// cost the daemon more than the client's relist costs the two of them.
const maxReplay = 100_000

// Answers is serve.Options.History of a recording daemon, nil otherwise:
// a resume from before the stores' memory window goes from pkg/serve to
// the history, and back.
func (r *Recording) Answers() serve.History {
	if r == nil || r.failed {
		return nil
	}
	return answers{r}
}

// StateAt implements serve.History.
func (a answers) StateAt(ctx context.Context, res kube.Resource, namespace, rv string) ([]*object.Object, error) {
	n, err := a.parse(res, rv)
	if err != nil {
		return nil, err
	}
	objs, err := history.ObjectsAt(ctx, a.r.store, history.ResourceName(res), n, history.InNamespace(namespace), history.Decoders(decoderOf(res)))
	if err != nil {
		return nil, tooOld(err)
	}
	return objs, nil
}

// Changes implements serve.History.
func (a answers) Changes(ctx context.Context, res kube.Resource, from, to string, needOld bool) ([]store.Change[*object.Object], error) {
	f, err := a.parse(res, from)
	if err != nil {
		return nil, err
	}
	t, err := a.parse(res, to)
	if err != nil {
		return nil, err
	}
	name := history.ResourceName(res)
	latest, err := a.r.store.Latest(ctx, name)
	if err == nil && latest < t {
		err = fmt.Errorf("%w: the history of %s ends at resourceVersion %d, before %d", store.ErrTooOld, name, latest, t)
	}
	var revs []history.Revision
	if err == nil {
		revs, err = a.r.store.Changes(ctx, name, f, t, maxReplay)
	}
	if err != nil {
		return nil, tooOld(err)
	}
	dec := decoderOf(res)
	var before map[store.Key]*object.Object // each object's state at from, with needOld
	if needOld {
		state, err := history.ObjectsAt(ctx, a.r.store, name, f, nil, history.Decoders(dec))
		if err != nil {
			return nil, tooOld(err)
		}
		before = keyed(state)
	}
	return changesOf(revs, dec, before)
}

// parse reads rv, and refuses a kind the history does not answer for.
func (a answers) parse(res kube.Resource, rv string) (uint64, error) {
	if history.IsSecrets(res) && !a.r.cfg.SecretData {
		return 0, fmt.Errorf("%w: the history holds Secrets' values hashed", store.ErrTooOld)
	}
	n, ok := store.ParseRV(rv)
	if !ok {
		return 0, fmt.Errorf("%w: %s", store.ErrInvalidResourceVersion, rv)
	}
	return n, nil
}

// tooOld wraps in store.ErrTooOld the errors of a history that does not
// hold what was asked (the client relists).
func tooOld(err error) error {
	var (
		before *history.BeforeError
		gap    *history.GapError
	)
	if errors.Is(err, history.ErrNotRecorded) || errors.Is(err, history.ErrTooMany) || errors.As(err, &before) || errors.As(err, &gap) {
		return fmt.Errorf("%w: %w", store.ErrTooOld, err)
	}
	return err
}

func decoderOf(res kube.Resource) *object.Decoder {
	return object.NewDecoder(object.DecoderOptions{APIVersion: res.GVR.GroupVersion().String(), Kind: res.Kind})
}

// keyed is a state by key.
func keyed(objs []*object.Object) map[store.Key]*object.Object {
	out := make(map[store.Key]*object.Object, len(objs))
	for _, o := range objs {
		out[store.KeyOf(o)] = o
	}
	return out
}

// changesOf turns revisions, in resourceVersion order, into a store's
// changes: each Applied one with its object's state before it when a
// revision in revs or the state before (nil: not known) says it.
func changesOf(revs []history.Revision, dec *object.Decoder, before map[store.Key]*object.Object) ([]store.Change[*object.Object], error) {
	known := before != nil
	last := before
	if last == nil {
		last = map[store.Key]*object.Object{}
	}
	seen := map[store.Key]bool{}
	out := make([]store.Change[*object.Object], 0, len(revs))
	for _, r := range revs {
		o, err := dec.Decode(r.Object, r.Cells, nil)
		if err != nil {
			return nil, err
		}
		k := store.Key{Namespace: r.Namespace, Name: r.Name}
		ch := store.Change[*object.Object]{Type: store.Applied, Key: k, Object: o, ResourceVersion: strconv.FormatUint(r.RV, 10)}
		old, ok := last[k]
		switch {
		case r.Op == history.Deleted:
			ch.Type = store.Deleted
			delete(last, k)
		case ok:
			ch.Old, ch.HasOld = old, true
			last[k] = o
		default: // not there before, or not known to be
			ch.OldUnknown = !known && !seen[k] && !r.Op.Appeared() // an INITIAL revision replays as an ADDED one
			last[k] = o
		}
		seen[k] = true
		out = append(out, ch)
	}
	return out, nil
}
