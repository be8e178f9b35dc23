package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// reconciler mirrors the sources of one kind. Every object of the kind is
// a request (For); a request is reconciled as a source, whatever it is:
// the copies it should have are written, the ones it should not have are
// removed.
type reconciler struct {
	kind    kind
	env     builtin.Env
	manager string
	// objects reads the kind in every namespace; nsInput the namespaces.
	objects, nsInput *controller.Input
	// auto remembers the sources that want automatic copies, for the
	// namespace mapper (a namespace created maps to them).
	auto *autoSources
	now  func() time.Time
}

// reflectsNeedle is how the reflects annotation's key reads in an
// object's JSON: a cheap test before decoding one.
var reflectsNeedle = []byte(`"` + annReflects + `"`)

// Reconcile reconciles the object at req as a source (see planFor).
func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	log := klog.FromContext(ctx)
	s, err := r.read(ctx, req)
	if err != nil {
		return controller.Result{}, err
	}
	sp := s.sourceProperties()
	if s.source != nil && sp.isAutoSource() {
		r.auto.set(req, sp)
	} else {
		r.auto.remove(req)
	}
	p := planFor(s)
	var errs []error
	for _, obj := range p.remove {
		errs = append(errs, r.remove(ctx, s.key, obj))
	}
	for _, t := range p.write {
		if upToDate(s.source, t) {
			log.V(4).Info("copy up to date", "copy", t.key)
			continue
		}
		errs = append(errs, r.write(ctx, s.source, t))
	}
	for _, obj := range p.conflicts {
		log.Info("not a mirror: left as it is", "object", obj.key, "source", req)
		r.warn(obj, s.source, "NotAMirror", "%s %s exists and does not reflect %s: it is left as it is", r.kind.resource.Kind, obj.key, req)
	}
	for _, obj := range p.refused {
		log.Info("source does not permit this copy: left as it is", "copy", obj.key, "source", req)
		r.warn(obj, s.source, "ReflectionNotPermitted", "source %s does not permit reflection to namespace %s: the copy is left as it is", req, obj.key.Namespace)
	}
	return controller.Result{}, errors.Join(errs...)
}

// read gathers the state of req from the stores. Most objects are no
// source and have no copy: what would not change the plan is not decoded
// (an object that does not mention the annotations, a namespace's labels
// when nothing depends on them), so that reconciling them is cheap.
func (r *reconciler) read(ctx context.Context, req controller.Request) (state, error) {
	s := state{key: req, atName: map[string]*item{}}
	if o, ok := r.objects.Get(req); ok {
		src, warnings, err := r.decode(o, false)
		if err != nil {
			return s, controller.Terminal(err)
		}
		s.source = src
		for _, w := range warnings {
			klog.FromContext(ctx).Info("invalid annotation", "source", req, "problem", w)
			r.warn(src, nil, "InvalidAnnotation", "%s", w)
		}
	}
	allowed := s.sourceProperties().allowed
	for _, o := range r.nsInput.List() {
		ns := namespaceInfo{name: o.Name}
		obj, there := r.objects.Get(store.Key{Namespace: o.Name, Name: req.Name})
		there = there && o.Name != req.Namespace
		if allowed || there {
			var err error
			if ns, err = decodeNamespace(o); err != nil {
				return s, controller.Terminal(err)
			}
		}
		s.namespaces = append(s.namespaces, ns)
		if there {
			it, _, err := r.decode(obj, allowed)
			if err != nil {
				return s, controller.Terminal(err)
			}
			s.atName[ns.name] = it
		}
	}
	if !allowed {
		return s, nil
	}
	for _, o := range r.objects.List() {
		if !bytes.Contains(o.JSON(), reflectsNeedle) || store.KeyOf(o) == req {
			continue
		}
		it, _, err := r.decode(o, true)
		if err != nil {
			return s, controller.Terminal(err)
		}
		if it.props.isMirror && it.props.reflects == req {
			s.manual = append(s.manual, it)
		}
	}
	return s, nil
}

// annotationNeedle is how the annotations' common prefix reads in JSON.
var annotationNeedle = []byte(`"` + prefix)

// decode reads o as an item; unless full, an object that mentions none of
// the annotations is not decoded (it has no properties: only its identity
// and resourceVersion are filled).
func (r *reconciler) decode(o *object.Object, full bool) (*item, []string, error) {
	if !full && !bytes.Contains(o.JSON(), annotationNeedle) {
		return &item{key: store.KeyOf(o), rv: o.ResourceVersion, uid: o.UID}, nil, nil
	}
	return r.kind.decodeItem(o)
}

// write applies the copy t of source.
func (r *reconciler) write(ctx context.Context, source *item, t target) error {
	ann := desiredAnnotations(source, t.auto)
	ann[annReflectedAt] = r.now().UTC().Format("2006-01-02T15:04:05.0000000-07:00") // as emberstack (.NET's "O")
	rv := ""
	if t.existing != nil {
		rv = t.existing.rv // never write over an object changed since it was judged a copy
	}
	opts := metav1.ApplyOptions{FieldManager: r.manager, Force: true}
	if r.env.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	want := desiredPayload(source, t)
	got, rv, err := r.kind.apply(ctx, r.env.Kube, t.key, rv, ann, want, opts)
	if err != nil {
		return fmt.Errorf("reflecting %s to %s: %w", source.key, t.key, err)
	}
	if extra := extraKeys(got, want); len(extra.Text)+len(extra.Bytes) > 0 {
		popts := metav1.PatchOptions{FieldManager: r.manager, DryRun: opts.DryRun}
		if err := r.kind.dropKeys(ctx, r.env.Kube, t.key, rv, extra, popts); err != nil {
			return fmt.Errorf("removing from %s the keys %s does not have: %w", t.key, source.key, err)
		}
	}
	klog.FromContext(ctx).V(1).Info("reflected", "copy", t.key, "auto", t.auto, "version", source.rv)
	return nil
}

// remove deletes the automatic copy obj of source, if it is still the
// object the reconcile judged (same UID and resourceVersion).
func (r *reconciler) remove(ctx context.Context, source store.Key, obj *item) error {
	uid := types.UID(obj.uid)
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid, ResourceVersion: &obj.rv}}
	if r.env.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	err := r.kind.remove(ctx, r.env.Kube, obj.key, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("removing %s, an automatic copy of %s: %w", obj.key, source, err)
	}
	klog.FromContext(ctx).V(1).Info("removed automatic copy", "copy", obj.key, "source", source)
	return nil
}

// warn emits a Warning event about obj (related to source, if any) when
// the environment has a recorder.
func (r *reconciler) warn(obj, source *item, reason, note string, args ...any) {
	if r.env.Recorder == nil {
		return
	}
	if source == nil {
		r.env.Recorder.Eventf(r.ref(obj), nil, corev1.EventTypeWarning, reason, "Mirror", note, args...)
		return
	}
	r.env.Recorder.Eventf(r.ref(obj), r.ref(source), corev1.EventTypeWarning, reason, "Mirror", note, args...)
}

func (r *reconciler) ref(it *item) *corev1.ObjectReference {
	return &corev1.ObjectReference{
		APIVersion: r.kind.resource.GVR.GroupVersion().String(), Kind: r.kind.resource.Kind,
		Namespace: it.key.Namespace, Name: it.key.Name, UID: types.UID(it.uid), ResourceVersion: it.rv,
	}
}

// autoSources are the sources that want automatic copies, with their
// properties, as their last reconcile found them. Safe for concurrent use.
type autoSources struct {
	mu sync.Mutex
	m  map[store.Key]properties
}

func (a *autoSources) set(k store.Key, p properties) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.m == nil {
		a.m = map[store.Key]properties{}
	}
	a.m[k] = p
}

func (a *autoSources) remove(k store.Key) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, k)
}

// each calls f for every source, under the lock: f must not block.
func (a *autoSources) each(f func(store.Key, properties)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, p := range a.m {
		f(k, p)
	}
}
