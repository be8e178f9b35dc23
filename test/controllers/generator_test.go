package controllers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
)

// TestGeneratorLifecycle: a generator created makes its ConfigMap (data,
// content, labels, annotations, a controller ownerReference) and says so in
// its status; updated, the ConfigMap follows; deleted,
// kube-controller-manager's garbage collector deletes the ConfigMap.
func TestGeneratorLifecycle(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	p := runGenerator(t, cp, ns)

	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n  content: hello\n  labels:\n    team: web\n  annotations:\n    note: generated\n")
	g := waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	if g.Status.GeneratedName != "app" {
		t.Errorf("generatedName %q, want app", g.Status.GeneratedName)
	}
	cm := waitConfigMap(t, cs, ns, "app", "with data a and content", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1", "content", "hello") })
	if cm.Labels["team"] != "web" || cm.Annotations["note"] != "generated" {
		t.Errorf("labels %v, annotations %v", cm.Labels, cm.Annotations)
	}
	ref := metav1.GetControllerOf(cm)
	if ref == nil || ref.UID != g.UID || ref.Kind != "ConfigMapGenerator" || ref.APIVersion != "kubectl-reflect.io/v1alpha1" ||
		ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller reference %+v, want one to generator %s", ref, g.UID)
	}
	if m := managers(cm); !slices.Contains(m, "kubectl-reflect-configmap-generator") {
		t.Errorf("managers %v", m)
	}
	p.WaitErrLine(reconciled(ns, "app", "ok"))

	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"2\"\n    b: \"3\"\n  labels:\n    team: web\n")
	cm = waitConfigMap(t, cs, ns, "app", "updated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "2", "b", "3") })
	if _, ok := cm.Annotations["note"]; ok {
		t.Errorf("an annotation removed from the spec stays: %v", cm.Annotations)
	}
	waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)

	if err := adminDynamic(t, cp).Resource(configmapgenerator.GVR).Namespace(ns).Delete(context.Background(), "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitGone(t, cs, ns, "app")
}

// TestGeneratorNameSuffixHash: with nameSuffixHash the ConfigMap is named
// after kustomize's hash of its content; a change makes a new one and
// prunes the old.
func TestGeneratorNameSuffixHash(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	runGenerator(t, cp, ns)

	applyGenerator(t, cp, ns, "app", "  nameSuffixHash: true\n  data:\n    a: \"1\"\n")
	g := waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	want, err := configmapgenerator.Desired(g)
	if err != nil {
		t.Fatal(err)
	}
	first := g.Status.GeneratedName
	if first != want.Name || len(first) <= len("app-") {
		t.Fatalf("generatedName %q, want %q", first, want.Name)
	}
	waitConfigMap(t, cs, ns, first, "with a=1", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })

	applyGenerator(t, cp, ns, "app", "  nameSuffixHash: true\n  data:\n    a: \"2\"\n")
	g = waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	second := g.Status.GeneratedName
	if second == first {
		t.Fatalf("generatedName %q did not change with the content", second)
	}
	waitConfigMap(t, cs, ns, second, "with a=2", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "2") })
	waitGone(t, cs, ns, first)

	// Hashing turned off: the plain name, the hashed one pruned.
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"2\"\n")
	waitConfigMap(t, cs, ns, "app", "with a=2", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "2") })
	waitGone(t, cs, ns, second)
}

// TestGeneratorDrift: a ConfigMap edited by someone else is restored (its
// values, a label dropped, its controller reference removed), one deleted
// is created again.
func TestGeneratorDrift(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	runGenerator(t, cp, ns)
	ctx := context.Background()

	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n  labels:\n    team: web\n")
	cm := waitConfigMap(t, cs, ns, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })

	// kubectl edit's way: an update that changes a value and drops a label.
	cm.Data["a"] = "edited"
	delete(cm.Labels, "team")
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	waitConfigMap(t, cs, ns, "app", "restored", func(cm *corev1.ConfigMap) bool {
		return dataIs(cm, "a", "1") && cm.Labels["team"] == "web"
	})

	// Its controller reference removed: an orphan the generator wrote, so
	// it is adopted again, not refused as someone else's.
	if out, errOut, code := kubectl(t, cp, "patch", "configmap", "app", "-n", ns, "--type=json",
		"-p", `[{"op":"remove","path":"/metadata/ownerReferences"}]`); code != 0 {
		t.Fatalf("kubectl patch: exit %d\n%s%s", code, out, errOut)
	}
	waitConfigMap(t, cs, ns, "app", "adopted again", func(cm *corev1.ConfigMap) bool { return metav1.GetControllerOf(cm) != nil })
	waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)

	uid := cm.UID
	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitConfigMap(t, cs, ns, "app", "created again", func(cm *corev1.ConfigMap) bool { return cm.UID != uid && dataIs(cm, "a", "1") })
}

// TestGeneratorImmutable: an immutable ConfigMap whose content changes is
// replaced: deleted and created again under its name, or, with
// nameSuffixHash, made anew under the new name and the old one pruned.
func TestGeneratorImmutable(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	runGenerator(t, cp, ns)
	immutable := func(cm *corev1.ConfigMap) bool { return cm.Immutable != nil && *cm.Immutable }

	applyGenerator(t, cp, ns, "plain", "  immutable: true\n  data:\n    a: \"1\"\n")
	cm := waitConfigMap(t, cs, ns, "plain", "immutable with a=1", func(cm *corev1.ConfigMap) bool { return immutable(cm) && dataIs(cm, "a", "1") })
	applyGenerator(t, cp, ns, "plain", "  immutable: true\n  data:\n    a: \"2\"\n")
	waitConfigMap(t, cs, ns, "plain", "replaced with a=2", func(cm2 *corev1.ConfigMap) bool {
		return cm2.UID != cm.UID && immutable(cm2) && dataIs(cm2, "a", "2")
	})
	waitReady(t, cp, ns, "plain", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	// Mutable again: replaced once more, as an update cannot clear immutable.
	applyGenerator(t, cp, ns, "plain", "  data:\n    a: \"2\"\n")
	waitConfigMap(t, cs, ns, "plain", "mutable", func(cm *corev1.ConfigMap) bool { return !immutable(cm) && dataIs(cm, "a", "2") })

	applyGenerator(t, cp, ns, "hashed", "  immutable: true\n  nameSuffixHash: true\n  data:\n    a: \"1\"\n")
	first := waitReady(t, cp, ns, "hashed", metav1.ConditionTrue, configmapgenerator.ReasonGenerated).Status.GeneratedName
	waitConfigMap(t, cs, ns, first, "immutable", immutable)
	applyGenerator(t, cp, ns, "hashed", "  immutable: true\n  nameSuffixHash: true\n  data:\n    a: \"2\"\n")
	g := waitReady(t, cp, ns, "hashed", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, g.Status.GeneratedName, "immutable with a=2", func(cm *corev1.ConfigMap) bool { return immutable(cm) && dataIs(cm, "a", "2") })
	waitGone(t, cs, ns, first)
}

// TestGeneratorInvalidSpec: a data key that is not a ConfigMap key, or
// "content" given twice, is Ready=False InvalidSpec with a Warning event,
// reconciled a bounded number of times (no retry loop) while other work
// goes on, and generates nothing; fixed, it generates.
func TestGeneratorInvalidSpec(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	p := runGenerator(t, cp, ns)

	applyGenerator(t, cp, ns, "bad", "  data:\n    a/b: \"1\"\n")
	g := waitReady(t, cp, ns, "bad", metav1.ConditionFalse, configmapgenerator.ReasonInvalidSpec)
	if msg := ready(g).Message; !contains(msg, `data key "a/b"`) {
		t.Errorf("message %q", msg)
	}
	if note := warningEvent(t, cs, ns, "bad", configmapgenerator.ReasonInvalidSpec); !contains(note, `data key "a/b"`) {
		t.Errorf("event note %q", note)
	}
	p.WaitErrLine(reconciled(ns, "bad", "terminal error: invalid spec"))

	// Later work gets done, and by then "bad" has not been retried: its
	// creation and its status write, at most, reconciled it.
	applyGenerator(t, cp, ns, "later", "  data:\n    a: \"1\"\n")
	p.WaitErrLine(reconciled(ns, "later", "ok"))
	waitReady(t, cp, ns, "later", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	if n := countLines(p.Stderr.String(), reconciled(ns, "bad", "")); n > 3 {
		t.Errorf("bad reconciled %d times: a retry loop\n%s", n, p.Stderr.String())
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "bad", metav1.GetOptions{}); err == nil {
		t.Error("an invalid generator made a ConfigMap")
	}

	applyGenerator(t, cp, ns, "clash", "  content: c\n  data:\n    content: d\n")
	g = waitReady(t, cp, ns, "clash", metav1.ConditionFalse, configmapgenerator.ReasonInvalidSpec)
	if msg := ready(g).Message; !contains(msg, `"content" clashes`) {
		t.Errorf("message %q", msg)
	}

	applyGenerator(t, cp, ns, "bad", "  data:\n    a.b: \"1\"\n")
	waitReady(t, cp, ns, "bad", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	waitConfigMap(t, cs, ns, "bad", "generated once fixed", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a.b", "1") })
}

// TestGeneratorNameConflict: a ConfigMap of the generator's name that it
// does not control is never written: Ready=False NameConflict and a Warning
// event; once that ConfigMap is deleted, the generator makes its own.
func TestGeneratorNameConflict(t *testing.T) {
	cp := cluster.Get(t)
	cs := admin(t, cp)
	ns := namespace(t, cs)
	ctx := context.Background()
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns, Labels: map[string]string{"owner": "someone"}}, Data: map[string]string{"theirs": "x"}}
	foreign, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, foreign, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := runGenerator(t, cp, ns)

	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n")
	g := waitReady(t, cp, ns, "app", metav1.ConditionFalse, configmapgenerator.ReasonNameConflict)
	if msg := ready(g).Message; !contains(msg, "ConfigMap app exists and is not controlled by this generator") {
		t.Errorf("message %q", msg)
	}
	warningEvent(t, cs, ns, "app", configmapgenerator.ReasonNameConflict)
	p.WaitErrLine(reconciled(ns, "app", "terminal error"))
	now, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.ResourceVersion != foreign.ResourceVersion || !maps.Equal(now.Data, foreign.Data) || len(now.OwnerReferences) > 0 {
		t.Errorf("the foreign ConfigMap was written: %+v", now)
	}

	if err := cs.CoreV1().ConfigMaps(ns).Delete(ctx, "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReady(t, cp, ns, "app", metav1.ConditionTrue, configmapgenerator.ReasonGenerated)
	cm := waitConfigMap(t, cs, ns, "app", "generated", func(cm *corev1.ConfigMap) bool { return dataIs(cm, "a", "1") })
	if ref := metav1.GetControllerOf(cm); ref == nil || ref.UID != g.UID {
		t.Errorf("controller reference %+v", ref)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestGeneratorNameConflictAtStart: a generator and a foreign ConfigMap of
// its name exist before the controller starts, among enough other
// ConfigMaps that their list takes longer than the generators': the first
// reconcile waits for both lists, sees the foreign ConfigMap and never
// writes it (a reconcile before the ConfigMaps' list would apply over it).
func TestGeneratorNameConflictAtStart(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	ns := namespace(t, cs)
	ctx := context.Background()
	filler := strings.Repeat("x", 4096)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < 2000; i += 16 {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("filler-%04d", i), Namespace: ns}, Data: map[string]string{"f": filler}}
				if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Data: map[string]string{"theirs": "x"}}
	foreign, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, foreign, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	installCRD(t, cp)
	applyGenerator(t, cp, ns, "app", "  data:\n    a: \"1\"\n")

	runGenerator(t, cp, ns)
	waitReady(t, cp, ns, "app", metav1.ConditionFalse, configmapgenerator.ReasonNameConflict)
	now, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if now.ResourceVersion != foreign.ResourceVersion || !maps.Equal(now.Data, foreign.Data) || len(now.OwnerReferences) > 0 {
		t.Errorf("the foreign ConfigMap was written: %+v", now)
	}
}
