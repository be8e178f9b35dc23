package history

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	const base = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","resourceVersion":"5","generation":1,"labels":{"a":"1"},"managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":1},"status":{"replicas":1}}`
	for _, tc := range []struct {
		name          string
		before, after string
		want          Class
	}{
		{"no before", "", base, Unclassified},
		{"generation moved", base, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","resourceVersion":"6","generation":2,"labels":{"a":"1"},"managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":1},"status":{"replicas":1}}`, SpecChange},
		{"spec changed", base, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","resourceVersion":"6","generation":1,"labels":{"a":"1"},"managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":2},"status":{"replicas":1}}`, SpecChange},
		{"label changed", base, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","resourceVersion":"6","generation":1,"labels":{"a":"2"},"managedFields":[{"manager":"kubectl"}]},"spec":{"replicas":1},"status":{"replicas":1}}`, SpecChange},
		{"status only", base, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"api","resourceVersion":"6","generation":1,"labels":{"a":"1"},"managedFields":[{"manager":"kubectl"},{"manager":"kcm","subresource":"status"}]},"spec":{"replicas":1},"status":{"replicas":2,"ready":"a \"}\" b"}}`, StatusChange},
		{"status added", `{"metadata":{"name":"p"},"spec":{}}`, `{"metadata":{"name":"p"},"spec":{},"status":{"phase":"Running"}}`, StatusChange},
		{"field added", `{"metadata":{"name":"p"},"spec":{}}`, `{"metadata":{"name":"p"},"spec":{},"data":{}}`, SpecChange},
		{"core warning", "", `{"kind":"Event","type":"Warning","involvedObject":{"kind":"Pod","name":"p"}}`, WarningEvent},
		{"events.k8s.io warning", "", `{"kind":"Event","type":"Warning","regarding":{"kind":"Pod","name":"p"}}`, WarningEvent},
		{"normal event", "", `{"kind":"Event","type":"Normal","involvedObject":{"kind":"Pod","name":"p"}}`, Unclassified},
		{"malformed", `{"a":1}`, `{"a":`, Unclassified},
	} {
		var before []byte
		if tc.before != "" {
			before = []byte(tc.before)
		}
		if got := Classify(before, []byte(tc.after)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func FuzzSplitMembers(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"}"}],"c":"\\\""}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, m := range splitMembers(doc) {
			splitMembers(m.value)
		}
	})
}

// BenchmarkClassify is what the class column costs a recorder per
// revision: a pod of about 3.5 KiB whose status changed, classified
// against the pod before.
func BenchmarkClassify(b *testing.B) {
	pod := func(phase string) []byte {
		return []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"app-1","namespace":"team-0","uid":"6c1f3e2a-8b7d-4c5e-9f0a-1b2c3d4e5f60","resourceVersion":"` + phase + `","labels":{"app":"app","tier":"backend"},"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-12-06T08:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{}},"f:spec":{"f:containers":{}}}}]},"spec":{"containers":[{"name":"app","image":"registry.example/app:1.4.2","env":[` +
			strings.Repeat(`{"name":"SETTING","value":"a value of some length"},`, 50) + `{"name":"LAST","value":"x"}]}],"nodeName":"node-1"},"status":{"phase":"` + phase + `","conditions":[{"type":"Ready","status":"True"}]}}`)
	}
	before, after := pod("Pending"), pod("Running")
	b.SetBytes(int64(len(after)))
	for b.Loop() {
		if Classify(before, after) != StatusChange {
			b.Fatal("not a status change")
		}
	}
}
