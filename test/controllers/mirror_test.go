package controllers

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// The mirror's end-to-end tests run `run-controller mirror -A` against the
// real control plane, for Secrets and ConfigMaps alike. Their sources
// restrict automatic copies to namespaces of the test's own prefix, since
// the mirror reads every namespace of the shared control plane.

const (
	annPrefix        = "reflector.v1.k8s.emberstack.com/"
	annAllowed       = annPrefix + "reflection-allowed"
	annAllowedNS     = annPrefix + "reflection-allowed-namespaces"
	annAutoEnabled   = annPrefix + "reflection-auto-enabled"
	annAutoNS        = annPrefix + "reflection-auto-namespaces"
	annReflects      = annPrefix + "reflects"
	annAutoReflects  = annPrefix + "auto-reflects"
	annReflectedVer  = annPrefix + "reflected-version"
	annReflectedAt   = annPrefix + "reflected-at"
	mirrorFieldOwner = "kubectl-reflect-mirror"
)

// mirrored is what the tests read of a Secret or a ConfigMap.
type mirrored struct {
	ann    map[string]string
	data   map[string]string
	rv     string
	owners []string // managedFields managers
}

// mirrorKind is one kind the mirror copies, seen through typed clients.
type mirrorKind struct {
	name       string // the resource, as run-controller names its controller mirror-NAME
	kind       string
	create     func(ctx context.Context, cs kubernetes.Interface, ns, name string, ann, data map[string]string) error
	get        func(ctx context.Context, cs kubernetes.Interface, ns, name string) (mirrored, error)
	edit       func(ctx context.Context, cs kubernetes.Interface, ns, name string, edit func(ann, data map[string]string)) error
	deleteFunc func(ctx context.Context, cs kubernetes.Interface, ns, name string) error
}

func toBytes(data map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range data {
		out[k] = []byte(v)
	}
	return out
}

func toStrings(data map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range data {
		out[k] = string(v)
	}
	return out
}

var mirrorKinds = []mirrorKind{
	{
		name: "secrets", kind: "Secret",
		create: func(ctx context.Context, cs kubernetes.Interface, ns, name string, ann, data map[string]string) error {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann}, Type: corev1.SecretTypeOpaque, Data: toBytes(data)}
			_, err := cs.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{})
			return err
		},
		get: func(ctx context.Context, cs kubernetes.Interface, ns, name string) (mirrored, error) {
			s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return mirrored{}, err
			}
			return mirrored{ann: s.Annotations, data: toStrings(s.Data), rv: s.ResourceVersion, owners: managers(s)}, nil
		},
		edit: func(ctx context.Context, cs kubernetes.Interface, ns, name string, edit func(ann, data map[string]string)) error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				data := toStrings(s.Data)
				if s.Annotations == nil {
					s.Annotations = map[string]string{}
				}
				edit(s.Annotations, data)
				s.Data = toBytes(data)
				_, err = cs.CoreV1().Secrets(ns).Update(ctx, s, metav1.UpdateOptions{})
				return err
			})
		},
		deleteFunc: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
			return cs.CoreV1().Secrets(ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
	},
	{
		name: "configmaps", kind: "ConfigMap",
		create: func(ctx context.Context, cs kubernetes.Interface, ns, name string, ann, data map[string]string) error {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann}, Data: data}
			_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			return err
		},
		get: func(ctx context.Context, cs kubernetes.Interface, ns, name string) (mirrored, error) {
			cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return mirrored{}, err
			}
			return mirrored{ann: cm.Annotations, data: cm.Data, rv: cm.ResourceVersion, owners: managers(cm)}, nil
		},
		edit: func(ctx context.Context, cs kubernetes.Interface, ns, name string, edit func(ann, data map[string]string)) error {
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				if cm.Annotations == nil {
					cm.Annotations = map[string]string{}
				}
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				edit(cm.Annotations, cm.Data)
				_, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
				return err
			})
		},
		deleteFunc: func(ctx context.Context, cs kubernetes.Interface, ns, name string) error {
			return cs.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
		},
	},
}

// mirrorWorld is one test's namespaces, client and kind.
type mirrorWorld struct {
	t      *testing.T
	cs     kubernetes.Interface
	k      mirrorKind
	prefix string // of every namespace of the test
}

func newMirrorWorld(t *testing.T, cs kubernetes.Interface, k mirrorKind) *mirrorWorld {
	return &mirrorWorld{t: t, cs: cs, k: k, prefix: fmt.Sprintf("mirror-%s-%d-", k.name[:3], time.Now().UnixNano()%1000000)}
}

// ns creates the namespace prefix+name (deleted when the test ends) and
// returns its full name.
func (w *mirrorWorld) ns(name string) string {
	w.t.Helper()
	full := w.prefix + name
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: full}}
	if _, err := w.cs.CoreV1().Namespaces().Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		w.t.Fatalf("creating namespace %s: %v", full, err)
	}
	w.t.Cleanup(func() { _ = w.cs.CoreV1().Namespaces().Delete(context.Background(), full, metav1.DeleteOptions{}) })
	return full
}

func (w *mirrorWorld) create(ns, name string, ann, data map[string]string) {
	w.t.Helper()
	if err := w.k.create(context.Background(), w.cs, ns, name, ann, data); err != nil {
		w.t.Fatalf("creating %s %s/%s: %v", w.k.kind, ns, name, err)
	}
}

func (w *mirrorWorld) get(ns, name string) mirrored {
	w.t.Helper()
	o, err := w.k.get(context.Background(), w.cs, ns, name)
	if err != nil {
		w.t.Fatalf("getting %s %s/%s: %v", w.k.kind, ns, name, err)
	}
	return o
}

func (w *mirrorWorld) edit(ns, name string, edit func(ann, data map[string]string)) {
	w.t.Helper()
	if err := w.k.edit(context.Background(), w.cs, ns, name, edit); err != nil {
		w.t.Fatalf("editing %s %s/%s: %v", w.k.kind, ns, name, err)
	}
}

func (w *mirrorWorld) delete(ns, name string) {
	w.t.Helper()
	if err := w.k.deleteFunc(context.Background(), w.cs, ns, name); err != nil {
		w.t.Fatalf("deleting %s %s/%s: %v", w.k.kind, ns, name, err)
	}
}

// copyOf waits until ns/name is a copy of source holding data, as the
// mirror writes one (auto says which kind), and returns it.
func (w *mirrorWorld) copyOf(ns, name, source string, auto bool, data map[string]string) mirrored {
	w.t.Helper()
	var got mirrored
	what := fmt.Sprintf("%s %s/%s a copy of %s with %v", w.k.kind, ns, name, source, data)
	eventually(w.t, what, func(ctx context.Context) (bool, error) {
		o, err := w.k.get(ctx, w.cs, ns, name)
		if err != nil {
			return false, err
		}
		got = o
		src, err := w.k.get(ctx, w.cs, strings.Split(source, "/")[0], strings.Split(source, "/")[1])
		if err != nil {
			return false, err
		}
		autoWant := "False"
		if auto {
			autoWant = "True"
		}
		return o.ann[annReflects] == source && o.ann[annAutoReflects] == autoWant &&
			o.ann[annReflectedVer] == src.rv && o.ann[annReflectedAt] != "" && maps.Equal(o.data, data), nil
	})
	return got
}

// gone waits until ns/name does not exist.
func (w *mirrorWorld) gone(ns, name, why string) {
	w.t.Helper()
	eventually(w.t, fmt.Sprintf("%s %s/%s gone (%s)", w.k.kind, ns, name, why), func(ctx context.Context) (bool, error) {
		_, err := w.k.get(ctx, w.cs, ns, name)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

// absent says ns/name does not exist now.
func (w *mirrorWorld) absent(ns, name string) bool {
	_, err := w.k.get(context.Background(), w.cs, ns, name)
	return apierrors.IsNotFound(err)
}

// warningEvent waits for a Warning event of reason about the object ns/name.
func (w *mirrorWorld) warningEvent(ns, name, reason string) {
	w.t.Helper()
	eventually(w.t, fmt.Sprintf("a %s Warning event about %s %s/%s", reason, w.k.kind, ns, name), func(ctx context.Context) (bool, error) {
		evs, err := w.cs.EventsV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Type == corev1.EventTypeWarning && e.Reason == reason && e.Regarding.Kind == w.k.kind && e.Regarding.Name == name {
				return true, nil
			}
		}
		return false, nil
	})
}

// unthrottled is an admin clientset without client-side rate limits: the
// tests poll, and client-go's default 5 requests per second would be what
// they measure.
func unthrottled(t *testing.T, cp *controlplane.ControlPlane) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(cp.AdminConfig())
	cfg.QPS = -1
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// startMirror runs `run-controller mirror -A` and waits until both of its
// controllers are ready.
func startMirror(t *testing.T, cp *controlplane.ControlPlane) *proc {
	t.Helper()
	p := start(t, cp, "run-controller", "mirror", "-A")
	ready := map[string]bool{}
	for len(ready) < 2 {
		line := p.WaitErrLine(`^mirror-(secrets|configmaps): ready$`)
		ready[line] = true
	}
	return p
}

// TestMirrorAuto: a source with reflection-auto-enabled gets a copy in
// every namespace its lists allow, and only there; the copies follow its
// changes, appear in a namespace created later, and go when the source
// narrows its namespaces, stops allowing reflection, or is deleted.
func TestMirrorAuto(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	p := startMirror(t, cp)
	for _, k := range mirrorKinds {
		t.Run(k.name, func(t *testing.T) {
			w := newMirrorWorld(t, cs, k)
			src, a, b, other := w.ns("src"), w.ns("a"), w.ns("b"), w.ns("other")
			late := w.prefix + "late"
			ann := map[string]string{
				annAllowed: "true", annAutoEnabled: "true",
				annAllowedNS: w.prefix + "(a|b|late|src)",
				annAutoNS:    w.prefix + "a, " + w.prefix + "b," + w.prefix + "l.*",
			}
			w.create(src, "shared", ann, map[string]string{"k": "v1"})
			source := src + "/shared"
			copyA := w.copyOf(a, "shared", source, true, map[string]string{"k": "v1"})
			w.copyOf(b, "shared", source, true, map[string]string{"k": "v1"})
			if !strings.Contains(strings.Join(copyA.owners, ","), mirrorFieldOwner) {
				t.Errorf("the copy's field managers are %q, want %s among them", copyA.owners, mirrorFieldOwner)
			}

			// A key added to a copy goes: a copy holds its source's data.
			w.edit(a, "shared", func(_, data map[string]string) { data["added"] = "by hand" })
			w.copyOf(a, "shared", source, true, map[string]string{"k": "v1"})

			w.edit(src, "shared", func(_, data map[string]string) { data["k"] = "v2"; data["new"] = "x" })
			w.copyOf(a, "shared", source, true, map[string]string{"k": "v2", "new": "x"})
			w.copyOf(b, "shared", source, true, map[string]string{"k": "v2", "new": "x"})

			w.ns("late")
			w.copyOf(late, "shared", source, true, map[string]string{"k": "v2", "new": "x"})

			// A key dropped by the source goes from the copies.
			w.edit(src, "shared", func(_, data map[string]string) { delete(data, "new") })
			w.copyOf(a, "shared", source, true, map[string]string{"k": "v2"})

			// Narrowed: late and b leave the automatic namespaces.
			w.edit(src, "shared", func(ann, _ map[string]string) { ann[annAutoNS] = w.prefix + "a" })
			w.gone(b, "shared", "auto-namespaces narrowed")
			w.gone(late, "shared", "auto-namespaces narrowed")
			w.copyOf(a, "shared", source, true, map[string]string{"k": "v2"})

			// Un-annotated: reflection-allowed removed.
			w.edit(src, "shared", func(ann, _ map[string]string) { delete(ann, annAllowed) })
			w.gone(a, "shared", "reflection-allowed removed")

			// Allowed again, then the source deleted.
			w.edit(src, "shared", func(ann, _ map[string]string) { ann[annAllowed] = "true" })
			w.copyOf(a, "shared", source, true, map[string]string{"k": "v2"})
			w.delete(src, "shared")
			w.gone(a, "shared", "source deleted")

			if !w.absent(other, "shared") {
				t.Errorf("%s/shared exists: a namespace outside the lists got a copy", other)
			}
		})
	}
	_ = p
}

// TestMirrorManual: a destination annotated reflects: NS/NAME is filled
// and follows its source where the source allows its namespace; where it
// does not, the destination is left as it is, with a Warning event; when
// the source is deleted, the filled destination stays (as emberstack).
func TestMirrorManual(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	startMirror(t, cp)
	for _, k := range mirrorKinds {
		t.Run(k.name, func(t *testing.T) {
			w := newMirrorWorld(t, cs, k)
			src, dst, denied := w.ns("src"), w.ns("dst"), w.ns("denied")
			w.create(src, "origin", map[string]string{annAllowed: "true", annAllowedNS: w.prefix + "dst"}, map[string]string{"k": "v1"})
			source := src + "/origin"
			// Written by someone else (as emberstack's copies are, before a
			// switch): "extra" must go too, as emberstack replaces data whole.
			w.create(dst, "my-copy", map[string]string{annReflects: source}, map[string]string{"k": "stale", "extra": "x"})
			w.create(denied, "my-copy", map[string]string{annReflects: source}, map[string]string{"k": "mine"})

			w.copyOf(dst, "my-copy", source, false, map[string]string{"k": "v1"})
			w.edit(src, "origin", func(_, data map[string]string) { data["k"] = "v2" })
			w.copyOf(dst, "my-copy", source, false, map[string]string{"k": "v2"})

			// A value edited on the copy is restored.
			w.edit(dst, "my-copy", func(_, data map[string]string) { data["k"] = "tampered" })
			w.copyOf(dst, "my-copy", source, false, map[string]string{"k": "v2"})

			w.warningEvent(denied, "my-copy", "ReflectionNotPermitted")
			if got := w.get(denied, "my-copy"); got.data["k"] != "mine" || got.ann[annReflectedVer] != "" {
				t.Errorf("the destination in a namespace the source does not allow was written: %+v", got)
			}

			w.delete(src, "origin")
			// The mirror reacts to the deletion (its copy maps back to the
			// source); a manual copy stays: wait for a later change to go
			// through first, so that "stays" is not "not yet removed".
			w.create(src, "marker", map[string]string{annAllowed: "true", annAllowedNS: w.prefix + "dst"}, map[string]string{"m": "1"})
			w.create(dst, "marker-copy", map[string]string{annReflects: src + "/marker"}, nil)
			w.copyOf(dst, "marker-copy", src+"/marker", false, map[string]string{"m": "1"})
			if got := w.get(dst, "my-copy"); got.data["k"] != "v2" {
				t.Errorf("the manual copy of a deleted source changed: %+v", got)
			}
		})
	}
}

// TestMirrorRefusesNonMirror: an object that stands where an automatic
// copy belongs and is not a mirror is never written: it keeps its data
// and resourceVersion, a Warning event says why, the other namespaces get
// their copies, and the source is not reconciled over and over.
func TestMirrorRefusesNonMirror(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	p := startMirror(t, cp)
	for _, k := range mirrorKinds {
		t.Run(k.name, func(t *testing.T) {
			w := newMirrorWorld(t, cs, k)
			src, taken, free := w.ns("src"), w.ns("taken"), w.ns("free")
			w.create(taken, "cfg", nil, map[string]string{"own": "data"})
			before := w.get(taken, "cfg")
			ann := map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoNS: w.prefix + ".*"}
			w.create(src, "cfg", ann, map[string]string{"k": "v"})
			w.copyOf(free, "cfg", src+"/cfg", true, map[string]string{"k": "v"})
			w.warningEvent(taken, "cfg", "NotAMirror")

			// A later change goes through (a marker source and its copy):
			// by then a hot loop would have shown.
			w.create(src, "marker", ann, map[string]string{"m": "1"})
			w.copyOf(free, "marker", src+"/marker", true, map[string]string{"m": "1"})
			after := w.get(taken, "cfg")
			if after.rv != before.rv || !maps.Equal(after.data, before.data) || after.ann[annReflects] != "" {
				t.Errorf("the non-mirror %s/cfg was written: before %+v, after %+v", taken, before, after)
			}
			reconciles := 0
			for _, line := range strings.Split(p.Stderr.String(), "\n") {
				if f := strings.Fields(line); len(f) > 2 && f[1] == "mirror-"+k.name && f[2] == src+"/cfg" {
					reconciles++
				}
			}
			// Its creation, its copies' creation and the namespaces
			// appearing trigger it a few times; a loop would be hundreds.
			if reconciles > 20 {
				t.Errorf("%s/cfg was reconciled %d times: a hot loop", src, reconciles)
			}
		})
	}
}

// TestMirrorNamespaceScoped: with -n NS, the mirror copies the sources of
// NS only (into any namespace: it still reads them all).
func TestMirrorNamespaceScoped(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	w := newMirrorWorld(t, cs, mirrorKinds[1])
	mine, others, dst := w.ns("mine"), w.ns("others"), w.ns("dst")
	p := start(t, cp, "run-controller", "mirror", "-n", mine)
	for range 2 {
		p.WaitErrLine(`^mirror-(secrets|configmaps): ready$`)
	}
	ann := map[string]string{annAllowed: "true", annAutoEnabled: "true", annAutoNS: w.prefix + "dst"}
	w.create(others, "theirs", ann, map[string]string{"k": "v"})
	w.create(mine, "ours", ann, map[string]string{"k": "v"})
	w.copyOf(dst, "ours", mine+"/ours", true, map[string]string{"k": "v"})
	// Created before ours, so reconciled (or not) before ours was.
	if !w.absent(dst, "theirs") {
		t.Errorf("%s/theirs was copied by a mirror scoped to %s", others, mine)
	}
	// Nor is any object of another namespace reconciled (a line each).
	for _, l := range strings.Split(p.Stderr.String(), "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[1], "mirror-") && !strings.HasPrefix(f[2], mine+"/") {
			t.Errorf("a mirror scoped to %s reconciled: %q", mine, l)
		}
	}
}

// TestMirrorSecretType: a Secret's copy has its source's type (a TLS
// secret, the common case of cert-manager's certificates).
func TestMirrorSecretType(t *testing.T) {
	cp := cluster.Get(t)
	cs := unthrottled(t, cp)
	w := newMirrorWorld(t, cs, mirrorKinds[0])
	src, dst := w.ns("src"), w.ns("dst")
	startMirror(t, cp)
	tls := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: src, Name: "cert", Annotations: map[string]string{
			annAllowed: "true", annAutoEnabled: "true", annAutoNS: w.prefix + "dst",
		}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: []byte("cert"), corev1.TLSPrivateKeyKey: []byte("key")},
	}
	if _, err := cs.CoreV1().Secrets(src).Create(context.Background(), tls, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.copyOf(dst, "cert", src+"/cert", true, map[string]string{corev1.TLSCertKey: "cert", corev1.TLSPrivateKeyKey: "key"})
	got, err := cs.CoreV1().Secrets(dst).Get(context.Background(), "cert", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Type != corev1.SecretTypeTLS {
		t.Errorf("the copy has type %q, want %q", got.Type, corev1.SecretTypeTLS)
	}
}
