package recordview

import (
	"encoding/json"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/blame"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// jsonChange is a change as -o json prints it.
type jsonChange struct {
	ResourceVersion uint64 `json:"resourceVersion"`
	// Time is when the change happened (RFC 3339, milliseconds); for one
	// seen late, the latest it can have happened, Since the earliest.
	Time  string `json:"time"`
	Since string `json:"since,omitempty"`
	// Op is the revision's: ADDED, MODIFIED, DELETED or INITIAL (the
	// value was there when recording began: set before, by no one known).
	Op          string `json:"op"`
	Manager     string `json:"manager,omitempty"`
	Operation   string `json:"operation,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

func changeJSON(c blame.Change) jsonChange {
	return jsonChange{
		ResourceVersion: c.RV, Time: stamp(c.Time), Since: stamp(c.Since), Op: c.Op.String(),
		Manager: c.Manager, Operation: c.Operation, Subresource: c.Subresource,
	}
}

// stamp is t in RFC 3339 with milliseconds, "" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}

// jsonObject names the object blamed.
type jsonObject struct {
	Resource  string `json:"resource"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func (p Blame) object(r history.Revision) jsonObject {
	return jsonObject{Resource: p.Kind.GVR.GroupResource().String(), Namespace: r.Namespace, Name: r.Name}
}

// blameJSON prints lines as one JSON document: the object, the revision
// blamed (Deleted: its object is gone, its last state blamed), and each
// line's text and change.
func (p Blame) blameJSON(last history.Revision, lines []blame.Line) error {
	type line struct {
		Text string `json:"text"`
		jsonChange
	}
	doc := struct {
		jsonObject
		ResourceVersion uint64 `json:"resourceVersion"`
		Deleted         bool   `json:"deleted,omitempty"`
		Lines           []line `json:"lines"`
	}{jsonObject: p.object(last), ResourceVersion: last.RV, Deleted: last.Op == history.Deleted, Lines: make([]line, len(lines))}
	for i, l := range lines {
		doc.Lines[i] = line{Text: l.Text, jsonChange: changeJSON(l.Change)}
	}
	return p.writeJSON(doc)
}

// logJSON prints a field's entries as one JSON document, newest first:
// value and previous are the field's JSON, left out when it was not
// there (removed, or the object deleted: deleted is true).
func (p Blame) logJSON(path object.Path, entries []blame.Entry) error {
	type entry struct {
		Value    json.RawMessage `json:"value,omitempty"`
		Previous json.RawMessage `json:"previous,omitempty"`
		Deleted  bool            `json:"deleted,omitempty"`
		jsonChange
	}
	doc := struct {
		Resource  string  `json:"resource"`
		Namespace string  `json:"namespace,omitempty"`
		Name      string  `json:"name"`
		Field     string  `json:"field"`
		Entries   []entry `json:"entries"`
	}{Resource: p.Kind.GVR.GroupResource().String(), Namespace: p.Namespace, Name: p.Name, Field: path.String(), Entries: make([]entry, len(entries))}
	for i, e := range entries {
		doc.Entries[i] = entry{Value: e.Value, Previous: e.Previous, Deleted: e.Deleted, jsonChange: changeJSON(e.Change)}
	}
	return p.writeJSON(doc)
}

func (p Blame) writeJSON(doc any) error {
	out, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return err
	}
	_, err = p.Out.Write(append(out, '\n'))
	return err
}
