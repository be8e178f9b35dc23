package output

import (
	"bufio"
	"fmt"

	"github.com/liggitt/tabwriter"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
)

// kubectlPrinter runs one of kubectl's printers (jsonpath, jsonpath-as-json,
// go-template, custom-columns, kyaml and their -file forms) on each event,
// through one tabwriter for the whole stream as `kubectl get -w` does, so
// that custom columns flushed together line up.
//
// Templates see the event's object, as with `kubectl get -w`: the root of
// {.metadata.name} is the ConfigMap. With watchEvents they see the event,
// {"type": "APPLIED", "object": {...}}, as with kubectl's
// --output-watch-events.
type kubectlPrinter struct {
	w           *bufio.Writer
	tw          *tabwriter.Writer
	p           printers.ResourcePrinter
	watchEvents bool
}

func newKubectlPrinter(w *bufio.Writer, p printers.ResourcePrinter, watchEvents bool) *kubectlPrinter {
	return &kubectlPrinter{w: w, tw: printers.GetNewTabWriter(w), p: p, watchEvents: watchEvents}
}

func (p *kubectlPrinter) Print(ev Event) error {
	if ev.Object == nil {
		return errNoObject
	}
	u, err := ev.Object.Unstructured()
	if err != nil {
		return err
	}
	if ev.Context != "" {
		ann := u.GetAnnotations()
		if ann == nil {
			ann = map[string]string{}
		}
		ann[ContextAnnotation] = ev.Context
		u.SetAnnotations(ann)
	}
	var obj runtime.Object = u
	if p.watchEvents {
		obj = &metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Object: u}}
	}
	if err := p.p.PrintObj(obj, p.tw); err != nil {
		return fmt.Errorf("printing %s/%s: %w", ev.Object.Namespace, ev.Object.Name, err)
	}
	return nil
}

func (p *kubectlPrinter) Flush() error {
	if err := p.tw.Flush(); err != nil {
		return err
	}
	return p.w.Flush()
}
