package output

import (
	"bufio"
	"strings"

	"github.com/tidwall/gjson"
)

// namePrinter writes `<kind>[.<group>]/<name>` per event, as kubectl -o name
// does: configmap/foo, deployment.apps/web. With events it adds the event
// type the way kubectl's name printer adds an operation ("configmap/foo
// deleted"): kubectl's -o name drops the type even with
// --output-watch-events, which would make APPLIED and DELETED look the same.
type namePrinter struct {
	w      *bufio.Writer
	events bool
}

func (p *namePrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	if ev.Context != "" {
		p.w.WriteString(ev.Context + " ")
	}
	p.w.WriteString(kindPrefix(kindOf(ev)))
	p.w.WriteString(ev.Object.Name)
	if p.events {
		p.w.WriteString(" ")
		p.w.WriteString(strings.ToLower(string(ev.Type)))
	}
	_, err := p.w.WriteString("\n")
	return err
}

func (p *namePrinter) Flush() error { return p.w.Flush() }

// kindOf is the event's Kind, or, when the event carries none, what the
// object's apiVersion and kind say.
func kindOf(ev Event) Kind {
	if ev.Kind != nil {
		return *ev.Kind
	}
	md := gjson.GetManyBytes(ev.Object.JSON(), "apiVersion", "kind")
	group, _, found := strings.Cut(md[0].Str, "/")
	if !found { // "v1": the core group
		group = ""
	}
	return Kind{Kind: md[1].Str, Group: group, Namespaced: ev.Object.Namespace != ""}
}

// kindPrefix is what kubectl puts before a name when it prints kinds:
// "configmap/", "deployment.apps/".
func kindPrefix(k Kind) string {
	kind := strings.ToLower(k.Kind)
	if kind == "" {
		kind = strings.ToLower(k.Resource)
	}
	if k.Group == "" {
		return kind + "/"
	}
	return kind + "." + k.Group + "/"
}
