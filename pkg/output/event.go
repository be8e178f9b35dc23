package output

import (
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// EventType is what happened to an object, as printed.
type EventType string

const (
	Applied EventType = "APPLIED"
	Deleted EventType = "DELETED"
)

// Kind describes the resource an event belongs to.
type Kind struct {
	Kind       string // "ConfigMap"
	Group      string // "" for the core group, "apps", ...
	Version    string // "v1"
	Resource   string // "configmaps"
	Namespaced bool
}

// Event is one line (or document) of a watch stream.
type Event struct {
	Type   EventType
	Kind   *Kind
	Object *object.Object
	// Old is the version printed before, for an APPLIED event of an object
	// already seen (nil otherwise).
	Old *object.Object
	// Columns are the server's Table columns for Kind, nil when unknown;
	// Object.Cells has one cell per column.
	Columns []object.Column
	// Context is the kubeconfig context the object came from when the
	// stream reads several ("" otherwise): a CONTEXT column after EVENT in
	// tables (Options.Contexts), "context" beside "type" in JSON and YAML,
	// before the name with -o name, and ContextAnnotation on the object
	// for kubectl's printers.
	Context string
}

// Options choose and tune a printer.
type Options struct {
	// Format is kubectl's -o value. "" (table), "wide", "json", "yaml" and
	// "name" are printed here (see Native); any other goes through Printer.
	Format string
	// Printer is kubectl's printer for a Format that is not Native
	// (jsonpath=..., go-template=..., custom-columns=..., kyaml, ...), as
	// kubectl's get.PrintFlags build it; New ignores it otherwise.
	Printer printers.ResourcePrinter
	// WatchEvents, as kubectl's --output-watch-events, gives Printer the
	// event, {type, object}, instead of the object, and adds the event type
	// to -o name. json and yaml always carry the event, and so does kyaml.
	WatchEvents bool
	// AllNamespaces adds a NAMESPACE column to tables.
	AllNamespaces bool
	// Contexts adds a CONTEXT column after EVENT to tables: the stream
	// reads several contexts (Event.Context).
	Contexts  bool
	NoHeaders bool
	// ShowKind shows names as kind/name from the first row on, as
	// --show-kind (a table does so by itself once it sees a second kind).
	ShowKind bool
	// SeveralKinds says the stream carries several kinds: a table prints
	// them from the first row as one table whatever the kinds (EVENT,
	// [NAMESPACE,] kind/name, AGE, labels, then the kind's other columns as
	// Name=value pairs) rather than switching to it when a second kind
	// turns up.
	SeveralKinds bool
	// ShowLabels adds a LABELS column to tables, as --show-labels.
	ShowLabels bool
	// ColumnLabels adds a column per label key to tables, as -L.
	ColumnLabels []string
	// Color colours event types (a terminal without NO_COLOR).
	Color bool
	// Diff prints APPLIED events of objects already seen as unified diffs
	// of their YAML, and new objects and deletions as one line each (see
	// watch --diff); Format must be "" or "yaml".
	Diff bool
	// DiffNew, with Diff, prints new objects' YAML under their line
	// (watch --diff-new).
	DiffNew bool
}

// Printer writes events. Implementations buffer: Flush writes out what is
// pending, and callers flush whenever they have no more events at hand.
type Printer interface {
	Print(ev Event) error
	Flush() error
}
