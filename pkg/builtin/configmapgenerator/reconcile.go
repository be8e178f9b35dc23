package configmapgenerator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/controller"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/store"
)

// reconciler makes each generator's ConfigMap as its spec says.
type reconciler struct {
	gens, cms    *controller.Input // For: the generators; Owns: the ConfigMaps
	kube         kubernetes.Interface
	fieldManager string
	dryRun       bool
	recorder     events.EventRecorder // nil emits none
	now          func() metav1.Time
	own          ownApplies
}

// Reconcile reads the generator and its ConfigMaps from the stores, applies
// the desired ConfigMap (unless it is stored already), prunes the ones an
// earlier spec generated and writes the status; or, when both objects are
// where its last reconcile that ended well left them (idle), nothing.
func (r *reconciler) Reconcile(ctx context.Context, req controller.Request) (controller.Result, error) {
	stored, ok := r.gens.Get(req)
	if !ok {
		r.own.forget(req)
		return controller.Result{}, nil // the garbage collector deletes its ConfigMaps
	}
	if r.idle(req, stored) {
		return controller.Result{}, nil
	}
	gen, err := controller.Decode[ConfigMapGenerator](stored)
	if err != nil {
		return controller.Result{}, controller.Terminal(err)
	}
	if gen.DeletionTimestamp != nil {
		r.own.forget(req)
		return controller.Result{}, nil
	}
	desired, err := Desired(gen)
	if err != nil {
		return controller.Result{}, r.refuse(ctx, gen, err)
	}
	ac, err := json.Marshal(ApplyConfiguration(desired, OwnerReference(gen)))
	if err != nil {
		return controller.Result{}, fmt.Errorf("encoding the apply configuration of ConfigMap %s/%s: %w", desired.Namespace, desired.Name, err)
	}
	if err := r.ensureConfigMap(ctx, req, gen, desired, ac); err != nil {
		return controller.Result{}, err
	}
	// The status names the ConfigMap only once the older ones are pruned:
	// while it names this one, there is nothing to prune and no need to
	// read every ConfigMap of the namespace. Nor is there while the spec
	// never changed (generation 1): the generator has only had this name.
	if gen.Status.GeneratedName != desired.Name && gen.Generation != 1 {
		if err := r.prune(ctx, gen, desired.Name); err != nil {
			return controller.Result{}, err
		}
	}
	msg := fmt.Sprintf("ConfigMap %s is generated", desired.Name)
	wrote, err := r.writeStatus(ctx, gen, NewStatus(gen, true, ReasonGenerated, msg, desired.Name, r.now()))
	if err != nil {
		return controller.Result{}, err
	}
	r.own.done(req, gen.ResourceVersion, wrote)
	return controller.Result{}, nil
}

// ensureConfigMap applies ac, the apply configuration of desired, unless
// the stored ConfigMap is settled: still as our last apply of ac made it,
// which needs no decoding (it is ours, and applying would change nothing).
// One as our last apply of another configuration made it is ours to
// apply; one that is neither controlled by gen nor adoptable is refused.
func (r *reconciler) ensureConfigMap(ctx context.Context, req controller.Request, gen *ConfigMapGenerator, desired *corev1.ConfigMap, ac []byte) error {
	o, ok := r.cms.Get(store.Key{Namespace: gen.Namespace, Name: desired.Name})
	same, ours := r.own.settled(req, resourceVersion(o), ac)
	if same {
		return nil
	}
	var current *corev1.ConfigMap
	if ok {
		var err error
		if current, err = controller.Decode[corev1.ConfigMap](o); err != nil {
			return err
		}
	}
	if current != nil && !ControlledBy(current, gen.UID) && !Adoptable(current, r.fieldManager) {
		return r.refuse(ctx, gen, &SpecError{Reason: ReasonNameConflict,
			Message: fmt.Sprintf("ConfigMap %s exists and is not controlled by this generator: it is left as it is", desired.Name)})
	}
	return r.applyConfigMap(ctx, req, desired, current, ac, ours)
}

// idle says whether gen, the stored generator under k, and its ConfigMap
// are where the last reconcile of k that ended well left them
// (ownApplies.idle): a reconcile now would write nothing, and is skipped
// before the generator is decoded.
func (r *reconciler) idle(k store.Key, gen *object.Object) bool {
	return r.own.idle(k, gen.ResourceVersion, func(name string) string {
		cm, _ := r.cms.Get(store.Key{Namespace: k.Namespace, Name: name})
		return resourceVersion(cm)
	})
}

// resourceVersion is o's, or "" for none.
func resourceVersion(o *object.Object) string {
	if o == nil {
		return ""
	}
	return o.ResourceVersion
}

// refuse reports a *SpecError as Ready=False and a Warning Event (when the
// status changes, so once per new problem) and returns it Terminal; any
// other error is returned as it is, to be retried.
func (r *reconciler) refuse(ctx context.Context, gen *ConfigMapGenerator, err error) error {
	var se *SpecError
	if !errors.As(err, &se) {
		return err
	}
	st := NewStatus(gen, false, se.Reason, se.Message, "", r.now())
	if !StatusEqual(gen.Status, st) {
		if _, werr := r.writeStatus(ctx, gen, st); werr != nil {
			return werr
		}
		if r.recorder != nil {
			ref := &corev1.ObjectReference{APIVersion: Group + "/" + Version, Kind: Kind, Namespace: gen.Namespace, Name: gen.Name, UID: gen.UID}
			r.recorder.Eventf(ref, nil, corev1.EventTypeWarning, se.Reason, "Generate", "%s", se.Message)
		}
	}
	return controller.Terminal(err)
}

// applyConfigMap applies acJSON, the apply configuration of desired, for
// the generator under key unless the fields this controller owns in
// current already say what it would write (ours: current is what this
// controller's last apply, of another configuration, made: they do not);
// an immutable current whose content must change is deleted first.
func (r *reconciler) applyConfigMap(ctx context.Context, key store.Key, desired, current *corev1.ConfigMap, acJSON []byte, ours bool) error {
	log := klog.FromContext(ctx)
	if current != nil && NeedsReplace(current, desired) {
		log.V(2).Info("replacing an immutable ConfigMap", "configmap", desired.Name)
		if err := r.delete(ctx, current); err != nil {
			return err
		}
		if r.dryRun {
			return nil // a dry-run apply would meet the ConfigMap still stored
		}
	} else if current != nil && !ours && r.applied(key, current, acJSON) {
		return nil
	}
	log.V(2).Info("applying", "configmap", desired.Name)
	cm := &corev1.ConfigMap{}
	err := r.serverApply(acJSON).Namespace(desired.Namespace).Resource("configmaps").Name(desired.Name).Do(ctx).Into(cm)
	if err != nil {
		return fmt.Errorf("applying ConfigMap %s/%s: %w", desired.Namespace, desired.Name, err)
	}
	if !r.dryRun {
		r.own.record(key, cm.Name, cm.ResourceVersion, acJSON)
	}
	return nil
}

// applied says whether the fields this controller's field manager owns in
// current are exactly ac: applying ac would change nothing. A field another
// manager took over (kubectl edit) or removed is no longer ours, so the
// comparison fails and the apply restores it.
//
// ac is the apply configuration's JSON. A ConfigMap at the resourceVersion
// of this manager's last apply (ownApplies) is settled by Reconcile without
// coming here; a match found here is recorded there.
func (r *reconciler) applied(gen store.Key, current *corev1.ConfigMap, ac []byte) bool {
	owned, err := corev1ac.ExtractConfigMap(current, r.fieldManager)
	if err != nil {
		return false
	}
	a, err := json.Marshal(owned)
	if err != nil || !bytes.Equal(a, ac) {
		return false
	}
	r.own.record(gen, current.Name, current.ResourceVersion, ac)
	return true
}

// prune deletes the ConfigMaps gen controls other than keep.
func (r *reconciler) prune(ctx context.Context, gen *ConfigMapGenerator, keep string) error {
	uid := []byte(gen.UID)
	var owned []*corev1.ConfigMap
	for _, o := range r.cms.InNamespace(gen.Namespace) {
		// The UID in the JSON is a cheap filter before decoding.
		if o.Name == keep || !bytes.Contains(o.JSON(), uid) {
			continue
		}
		cm, err := controller.Decode[corev1.ConfigMap](o)
		if err != nil {
			return err
		}
		owned = append(owned, cm)
	}
	for _, cm := range ToPrune(owned, gen.UID, keep) {
		klog.FromContext(ctx).V(2).Info("pruning", "configmap", cm.Name)
		if err := r.delete(ctx, cm); err != nil {
			return err
		}
	}
	return nil
}

// delete deletes cm if it is still the object of that UID.
func (r *reconciler) delete(ctx context.Context, cm *corev1.ConfigMap) error {
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &cm.UID}}
	if r.dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	err := r.kube.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	return nil
}

// writeStatus applies st to gen's status subresource unless it is stored
// already. It sends the apply's JSON itself and reads nothing of the
// answer but its status code and resourceVersion (returned; "" when it
// wrote nothing): the dynamic client would build the request from maps and
// decode the whole answer into maps, about a third of a reconcile's CPU,
// for a result the generator's watch brings anyway.
func (r *reconciler) writeStatus(ctx context.Context, gen *ConfigMapGenerator, st Status) (resourceVersion string, err error) {
	if StatusEqual(gen.Status, st) {
		return "", nil
	}
	body, err := json.Marshal(statusApply{
		TypeMeta:   metav1.TypeMeta{APIVersion: Group + "/" + Version, Kind: Kind},
		ObjectMeta: statusApplyMeta{Name: gen.Name, Namespace: gen.Namespace},
		Status:     st,
	})
	if err != nil {
		return "", err
	}
	answer, err := r.serverApply(body).
		AbsPath("/apis", Group, Version, "namespaces", gen.Namespace, GVR.Resource, gen.Name, "status").
		Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("writing the status of %s/%s: %w", gen.Namespace, gen.Name, err)
	}
	if r.dryRun {
		return "", nil // nothing was written
	}
	return writtenOver(answer, gen.Generation), nil
}

// writtenOver is the resourceVersion in answer, a status write's, when
// the generator it wrote still had generation, the one the status was
// made from; "" otherwise. The status subresource takes a write whatever
// the spec became since it was read: a generator written over a newer spec
// is not what a reconcile of the one read would leave.
func writtenOver(answer []byte, generation int64) string {
	meta := gjson.GetManyBytes(answer, "metadata.resourceVersion", "metadata.generation")
	if meta[1].Type != gjson.Number || meta[1].Int() != generation {
		return ""
	}
	return meta[0].String()
}

// statusApply is the body of a status apply: the generator's identity and
// its status, nothing else.
type statusApply struct {
	metav1.TypeMeta `json:",inline"`
	ObjectMeta      statusApplyMeta `json:"metadata"`
	Status          Status          `json:"status"`
}

type statusApplyMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
}

// serverApply is a server-side apply of body (JSON) under the
// reconciler's field manager, forced, to the path the caller sets: through
// the core REST client (any of the server's will do for an absolute path),
// with the query written as it is, not converted from ApplyOptions by the
// scheme (the typed client's cost on every call), and the apply
// configuration's JSON the caller already has sent as it is.
func (r *reconciler) serverApply(body []byte) *rest.Request {
	req := r.kube.CoreV1().RESTClient().Patch(types.ApplyPatchType).
		Param("fieldManager", r.fieldManager).Param("force", "true").Body(body)
	if r.dryRun {
		req = req.Param("dryRun", metav1.DryRunAll)
	}
	return req
}
