package history

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Times of the managedFields entries of TestManager's Deployment: the
// API server writes them with a second's precision.
const (
	t0 = "2026-12-04T07:00:00Z" // kubectl apply created it
	t1 = "2026-12-04T07:00:01Z"
	t2 = "2026-12-04T07:00:02Z"
	t3 = "2026-12-04T07:00:03Z"
	t4 = "2026-12-04T07:00:04Z"
)

// deployment is TestManager's Deployment as the API server writes it.
type deployment struct {
	replicas   int
	image      string
	revision   string   // the controller's deployment.kubernetes.io/revision annotation
	labels     string   // metadata.labels (JSON), "" none
	finalizers []string // metadata.finalizers
	deleting   bool     // metadata.deletionTimestamp set
	status     string   // JSON, "" none
	entries    []string // managedFields
}

// json is d's JSON at resourceVersion rv (and generation rv: the
// bookkeeping changes at each revision).
func (d deployment) json(rv int) []byte {
	annotations := map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"apps/v1","kind":"Deployment"}`}
	if d.revision != "" {
		annotations["deployment.kubernetes.io/revision"] = d.revision
	}
	meta := map[string]any{"name": "web", "namespace": "default", "uid": "8d1c6f0e-1b1e-4a8e-9c57-2f0c2b1c9b1e",
		"resourceVersion": strconv.Itoa(rv), "generation": rv, "creationTimestamp": t0, "annotations": annotations}
	if d.labels != "" {
		meta["labels"] = json.RawMessage(d.labels)
	}
	if d.finalizers != nil {
		meta["finalizers"] = d.finalizers
	}
	if d.deleting {
		meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"] = t3, 0
	}
	if d.entries != nil {
		entries := make([]json.RawMessage, len(d.entries))
		for i, e := range d.entries {
			entries[i] = json.RawMessage(e)
		}
		meta["managedFields"] = entries
	}
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta,
		"spec": map[string]any{"replicas": d.replicas, "selector": map[string]any{"matchLabels": map[string]string{"app": "web"}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]string{"app": "web"}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "web", "image": d.image, "imagePullPolicy": "Always"}}, "restartPolicy": "Always"}}}}
	if d.status != "" {
		obj["status"] = json.RawMessage(d.status)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return b
}

// with returns a copy of d changed by f (its slices copied: f may change
// them in place).
func (d deployment) with(f func(*deployment)) deployment {
	d.entries = append([]string(nil), d.entries...)
	d.finalizers = append([]string(nil), d.finalizers...)
	f(&d)
	return d
}

// entry is a managedFields entry of an Update as the API server writes it
// (at "": without a time, as it writes /scale's).
func entry(manager, subresource, at, fields string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"manager":%q,"operation":"Update","apiVersion":"apps/v1"`, manager)
	if at != "" {
		fmt.Fprintf(&b, `,"time":%q`, at)
	}
	fmt.Fprintf(&b, `,"fieldsType":"FieldsV1","fieldsV1":%s`, fields)
	if subresource != "" {
		fmt.Fprintf(&b, `,"subresource":%q`, subresource)
	}
	return b.String() + "}"
}

// applied is kubectl apply's (client-side) entry, with or without the
// replicas and the container's image.
func applied(at string, replicas, image bool) string {
	r, i := "", ""
	if replicas {
		r = `"f:replicas":{},`
	}
	if image {
		i = `"f:image":{},`
	}
	return entry("kubectl-client-side-apply", "", at, `{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}},`+
		`"f:spec":{`+r+`"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},`+
		`"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},`+i+`"f:imagePullPolicy":{},"f:name":{}}},"f:restartPolicy":{}}}}}`)
}

// The controller's entries: the revision annotation, and the status.
func controllerMeta(at string) string {
	return entry("kube-controller-manager", "", at, `{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}}}`)
}

func controllerStatus(at string) string {
	return entry("kube-controller-manager", "status", at, `{"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},`+
		`"k:{\"type\":\"Available\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},`+
		`"k:{\"type\":\"Progressing\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},`+
		`"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}`)
}

// status is the controller's status of the Deployment: ready of replicas
// ready, its Progressing condition updated at progressed.
func status(replicas, ready int, progressed string) string {
	return fmt.Sprintf(`{"availableReplicas":%[1]d,"conditions":[`+
		`{"lastTransitionTime":%[2]q,"lastUpdateTime":%[2]q,"message":"Deployment has minimum availability.","reason":"MinimumReplicasAvailable","status":"True","type":"Available"},`+
		`{"lastTransitionTime":%[2]q,"lastUpdateTime":%[3]q,"message":"ReplicaSet \"web-5d4f8\" is progressing.","reason":"ReplicaSetUpdated","status":"True","type":"Progressing"}],`+
		`"observedGeneration":1,"readyReplicas":%[1]d,"replicas":%[4]d,"updatedReplicas":%[4]d}`, ready, t0, progressed, replicas)
}

// scaled is the entry of kubectl scale (the /scale subresource), which
// the API server writes without a time.
var scaled = entry("kubectl", "scale", "", `{"f:spec":{"f:replicas":{}}}`)

func edited(at string, fields string) string { return entry("kubectl-edit", "", at, fields) }

const editorsImage = `{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{"f:image":{}}}}}}}`

// TestManager tells who made each change of a Deployment from its
// managedFields as the API server writes them: created by kubectl apply,
// scaled through /scale, edited, patched, and kube-controller-manager's
// status updates within one second (its entry byte for byte the same) and
// later.
func TestManager(t *testing.T) {
	created := deployment{replicas: 1, image: "nginx", entries: []string{applied(t0, true, true)}}
	annotated := created.with(func(d *deployment) {
		d.revision = "1"
		d.entries = append(d.entries, controllerMeta(t0))
	})
	withStatus := annotated.with(func(d *deployment) {
		d.status = status(1, 0, t0)
		d.entries = append(d.entries, controllerStatus(t0))
	})
	ready := withStatus.with(func(d *deployment) { d.status = status(1, 1, t0) }) // in the same second
	scale := ready.with(func(d *deployment) {
		d.replicas = 3
		d.entries = []string{applied(t0, false, true), controllerMeta(t0), controllerStatus(t0), scaled}
	})
	scaledStatus := scale.with(func(d *deployment) { d.status = status(3, 1, t0) }) // in the same second as the status before
	progressed := scaledStatus.with(func(d *deployment) { d.status = status(3, 1, t1) })
	laterReady := progressed.with(func(d *deployment) {
		d.status = status(3, 3, t1)
		d.entries[2] = controllerStatus(t2)
	})
	rescaled := laterReady.with(func(d *deployment) { d.replicas = 4 })
	edit := rescaled.with(func(d *deployment) {
		d.image = "nginx:1.27"
		d.entries[0] = applied(t0, false, false)
		d.entries = append(d.entries, edited(t3, editorsImage))
	})
	editAgain := edit.with(func(d *deployment) { d.image = "nginx:1.28" }) // in the same second: no entry changed
	reapplied := editAgain.with(func(d *deployment) {
		d.replicas = 2
		d.entries = []string{applied(t3, true, false), controllerMeta(t0), controllerStatus(t2), edited(t3, editorsImage)} // /scale's entry lost its only field
	})
	labelled := reapplied.with(func(d *deployment) {
		d.labels = `{"team":"web"}`
		d.entries = append(d.entries, entry("kubectl-label", "", t3, `{"f:metadata":{"f:labels":{".":{},"f:team":{}}}}`))
	})
	finalized := labelled.with(func(d *deployment) {
		d.finalizers = []string{"example.com/keep"}
		d.entries = append(d.entries, entry("guard", "", t3, `{"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/keep\"":{}}}}`))
	})
	finalizedAgain := finalized.with(func(d *deployment) { // in the same second: the entry grew, its time the same
		d.finalizers = append(d.finalizers, "example.com/audit")
		d.entries[len(d.entries)-1] = entry("guard", "", t3, `{"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/audit\"":{},"v:\"example.com/keep\"":{}}}}`)
	})
	unlabelled := finalizedAgain.with(func(d *deployment) { // the label's manager lost it; who removed it, no entry says
		d.labels = ""
		d.entries = slicesDelete(d.entries, 4)
	})
	deleting := finalizedAgain.with(func(d *deployment) { d.deleting = true })
	rewritten := edit.with(func(d *deployment) { // a request that set managedFields: two entries stamped
		d.image = "nginx:1.29"
		d.entries[0] = applied(t4, false, false)
		d.entries[len(d.entries)-1] = edited(t4, editorsImage)
	})

	tests := []struct {
		name      string
		doc, prev deployment
		unseen    bool // no prev: a change the recorder did not see
		want      string
	}{
		{name: "created by kubectl apply", doc: created, unseen: true, want: "kubectl-client-side-apply"},
		{name: "not seen: the latest entry's", doc: ready, unseen: true, want: "kube-controller-manager"},
		{name: "not seen: an entry without a time is the oldest", doc: deployment{entries: []string{applied(t0, true, true), scaled}}, unseen: true, want: "kubectl-client-side-apply"},
		{name: "no managedFields", doc: deployment{replicas: 2}, prev: deployment{replicas: 1}, want: ""},
		{name: "the controller's revision annotation: a new entry", doc: annotated, prev: created, want: "kube-controller-manager"},
		{name: "the controller's first status: a new entry of /status", doc: withStatus, prev: annotated, want: "kube-controller-manager"},
		{name: "a status update in the same second: no entry changed", doc: ready, prev: withStatus, want: "kube-controller-manager"},
		{name: "kubectl scale: a new entry without a time; the applier's lost the replicas", doc: scale, prev: ready, want: "kubectl"},
		{name: "a status update after a scale, in the same second as the one before", doc: scaledStatus, prev: scale, want: "kube-controller-manager"},
		{name: "a condition's time only (a keyed list's element)", doc: progressed, prev: scaledStatus, want: "kube-controller-manager"},
		{name: "a status update in a later second: the entry re-stamped", doc: laterReady, prev: progressed, want: "kube-controller-manager"},
		{name: "kubectl scale again: no entry changed", doc: rescaled, prev: laterReady, want: "kubectl"},
		{name: "kubectl edit takes the image from the applier", doc: edit, prev: rescaled, want: "kubectl-edit"},
		{name: "kubectl edit again in the same second", doc: editAgain, prev: edit, want: "kubectl-edit"},
		{name: "kubectl apply takes the replicas back from /scale's entry", doc: reapplied, prev: editAgain, want: "kubectl-client-side-apply"},
		{name: "kubectl label: a new entry", doc: labelled, prev: reapplied, want: "kubectl-label"},
		{name: "a set's value (v:) added by a new entry", doc: finalized, prev: labelled, want: "guard"},
		{name: "a set's value added in the same second: the entry grew, its time the same", doc: finalizedAgain, prev: finalized, want: "guard"},
		{name: "a field removed: no entry owns what changed", doc: unlabelled, prev: finalizedAgain, want: ""},
		{name: "a deletion begun: no entry changed or owns what changed", doc: deleting, prev: finalizedAgain, want: ""},
		{name: "two entries stamped: the one that owns what changed", doc: rewritten, prev: edit, want: "kubectl-edit"},
	}
	for _, tc := range tests {
		var prev []byte
		if !tc.unseen {
			prev = tc.prev.json(1)
		}
		if got := Manager(tc.doc.json(2), prev); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// slicesDelete is s without its element i, in a new slice.
func slicesDelete(s []string, i int) []string {
	return append(append([]string(nil), s[:i]...), s[i+1:]...)
}

// TestManagerReadsEntriesWhole: an entry's text found in the list before
// only inside a string (escaped, as a field's key) is not found there.
func TestManagerReadsEntriesWhole(t *testing.T) {
	label := entry("kubectl-label", "", t1, `{"f:metadata":{"f:labels":{".":{},"f:team":{}}}}`)
	doc := deployment{labels: `{"team":"web"}`, entries: []string{applied(t0, true, true), label}}
	prev := deployment{entries: []string{applied(t0, true, true),
		entry("other", "", t1, `{"f:metadata":{"f:annotations":{"k:`+strings.ReplaceAll(label, `"`, `\"`)+`":{}}}}`)}}
	if got := Manager(doc.json(2), prev.json(1)); got != "kubectl-label" {
		t.Errorf("%q, want kubectl-label", got)
	}
}

// Each of fieldsV1's kinds of path (f:, k:, v:, i:, .) finds the changes
// it owns, and only those.
func TestOwned(t *testing.T) {
	const obj = `{"metadata":{"resourceVersion":"%d","labels":{"a":"%s"}},"spec":{"ports":[{"port":80,"protocol":"TCP","name":"%s"}],"args":["x","%s"],"finalizers":["%s"]}}`
	tests := []struct {
		name       string
		fields     string
		old, cur   []any
		wantChange int
	}{
		{"a field", `{"f:metadata":{"f:labels":{"f:a":{}}}}`, []any{1, "x", "", "", ""}, []any{2, "y", "", "", ""}, 1},
		{"another field", `{"f:metadata":{"f:labels":{"f:a":{}}}}`, []any{1, "x", "p", "", ""}, []any{2, "x", "q", "", ""}, 0},
		{"the bookkeeping", `{"f:metadata":{"f:resourceVersion":{}}}`, []any{1, "x", "", "", ""}, []any{2, "x", "", "", ""}, 0},
		{"a keyed element's field", `{"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{"f:name":{}}}}}`, []any{1, "", "p", "", ""}, []any{2, "", "q", "", ""}, 1},
		{"another keyed element", `{"f:spec":{"f:ports":{"k:{\"port\":81,\"protocol\":\"TCP\"}":{"f:name":{}}}}}`, []any{1, "", "p", "", ""}, []any{2, "", "q", "", ""}, 0},
		{"an index", `{"f:spec":{"f:args":{"i:1":{}}}}`, []any{1, "", "", "y", ""}, []any{2, "", "", "z", ""}, 1},
		{"an atomic list", `{"f:spec":{"f:args":{}}}`, []any{1, "", "", "y", ""}, []any{2, "", "", "z", ""}, 1},
		{"a set's value that appeared", `{"f:spec":{"f:finalizers":{"v:\"b\"":{}}}}`, []any{1, "", "", "", "a"}, []any{2, "", "", "", "b"}, 1},
		{"a set's value that went away", `{"f:spec":{"f:finalizers":{"v:\"a\"":{}}}}`, []any{1, "", "", "", "a"}, []any{2, "", "", "", "b"}, 0},
	}
	for _, tc := range tests {
		old, cur := fmt.Sprintf(obj, tc.old...), fmt.Sprintf(obj, tc.cur...)
		if got := changes([]byte(old), []byte(cur)).ownedBy(parse(tc.fields)); got != tc.wantChange {
			t.Errorf("%s: owns %d changes, want %d", tc.name, got, tc.wantChange)
		}
	}
}

func parse(s string) gjson.Result { return gjson.Parse(s) }

// BenchmarkManager is the recorder's reading of who made a change: a 1 KiB
// ConfigMap patched by one manager, against the revision before it.
func BenchmarkManager(b *testing.B) {
	cm := func(at, text string) []byte {
		return fmt.Appendf(nil, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm-1","namespace":"default","uid":"8d1c6f0e-1b1e-4a8e-9c57-2f0c2b1c9b1e","resourceVersion":"12345","creationTimestamp":"2026-12-04T07:00:00Z","managedFields":[{"manager":"populate","operation":"Update","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:payload":{},"f:rev":{}}}}]},"data":{"payload":%q,"rev":"x"}}`, at, text)
	}
	text := strings.Repeat("abcdefghij", 100)
	prev, doc := cm("2026-12-04T07:00:00Z", text), cm("2026-12-04T07:00:01Z", text)
	for b.Loop() {
		if Manager(doc, prev) != "populate" {
			b.Fatal("wrong manager")
		}
	}
}

// BenchmarkManagerByFields is Manager's slow path: a Deployment's status
// updated by kube-controller-manager in the same second as its update
// before (no managedFields entry changed: the fields that changed decide),
// among four entries.
func BenchmarkManagerByFields(b *testing.B) {
	before := deployment{replicas: 3, image: "nginx", revision: "1", status: status(3, 1, t0),
		entries: []string{applied(t0, false, true), controllerMeta(t0), controllerStatus(t0), scaled}}
	after := before.with(func(d *deployment) { d.status = status(3, 2, t0) })
	doc, prev := after.json(2), before.json(1)
	for b.Loop() {
		if Manager(doc, prev) != "kube-controller-manager" {
			b.Fatal("wrong manager")
		}
	}
}
