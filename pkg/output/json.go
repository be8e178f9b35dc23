package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

var (
	errNoObject = errors.New("event has no object")
	jsonNull    = []byte("null")
)

// jsonPrinter writes NDJSON, one line per event:
//
//	{"type":"APPLIED","object":<the object's JSON as received>}
//
// It is the hot path of `watch -o json`: the object is copied, never decoded,
// and a Print allocates nothing unless the object's JSON spans several lines.
type jsonPrinter struct {
	w       *bufio.Writer
	compact bytes.Buffer // reused when the JSON must be compacted onto one line
	raw     []byte       // reused to read a packed object's JSON
}

// Prefixes for the constant event types, so Print needs no encoding.
const (
	jsonAppliedPrefix = `{"type":"APPLIED","object":`
	jsonDeletedPrefix = `{"type":"DELETED","object":`
)

func (p *jsonPrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	var raw []byte
	if packed, _ := ev.Object.Packed(); packed {
		p.raw = ev.Object.AppendJSON(p.raw[:0]) // no allocation per event
		raw = p.raw
	} else {
		raw = ev.Object.JSON()
	}
	switch {
	case len(raw) == 0:
		raw = jsonNull
	case bytes.IndexByte(raw, '\n') >= 0:
		p.compact.Reset()
		if err := json.Compact(&p.compact, raw); err != nil {
			return fmt.Errorf("compacting %s/%s: %w", ev.Object.Namespace, ev.Object.Name, err)
		}
		raw = p.compact.Bytes()
	}
	switch {
	case ev.Context != "":
		typ, _ := json.Marshal(string(ev.Type))
		ctx, _ := json.Marshal(ev.Context)
		p.w.WriteString(`{"type":`)
		p.w.Write(typ)
		p.w.WriteString(`,"context":`)
		p.w.Write(ctx)
		p.w.WriteString(`,"object":`)
	case ev.Type == Applied:
		p.w.WriteString(jsonAppliedPrefix)
	case ev.Type == Deleted:
		p.w.WriteString(jsonDeletedPrefix)
	default:
		typ, err := json.Marshal(string(ev.Type))
		if err != nil {
			return err
		}
		p.w.WriteString(`{"type":`)
		p.w.Write(typ)
		p.w.WriteString(`,"object":`)
	}
	p.w.Write(raw)
	_, err := p.w.WriteString("}\n")
	return err // bufio.Writer keeps its first error; this one is the latest
}

func (p *jsonPrinter) Flush() error { return p.w.Flush() }
