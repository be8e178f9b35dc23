package object

import "testing"

// TestViewLean: a View reads its buffers in place; Lean keeps a copy of the
// cells given and no JSON, so the buffers can be reused.
func TestViewLean(t *testing.T) {
	buf := []byte(`{"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}`)
	cells := []byte(`["a",1,"5m"]`)
	v := View("ns", "a", buf, cells)
	if v.Namespace != "ns" || v.Name != "a" || string(v.JSON()) != string(buf) || string(v.Cells) != string(cells) {
		t.Fatalf("View = %+v, JSON %s", v, v.JSON())
	}
	now := []byte(`["a",1,"6m"]`)
	lean := v.Lean(now)
	clear(buf) // the buffers reused
	clear(now)
	if lean.Namespace != "ns" || lean.Name != "a" || string(lean.Cells) != `["a",1,"6m"]` || len(lean.JSON()) != 0 {
		t.Errorf("Lean = %+v, JSON %q", lean, lean.JSON())
	}
}
