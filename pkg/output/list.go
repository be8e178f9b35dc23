package output

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/internal/parallel"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// TableOptions say how much of each object a Table row must carry for
// kubectl's table printer.
type TableOptions struct {
	// Labels fills each row's object with its labels (--show-labels, -L).
	Labels bool
	// FullObjects decodes each row's whole object (--sort-by needs it).
	FullObjects bool
	// Now is the time AGE is computed at.
	Now time.Time
	// TimesAtNow: the cells' times are as of Now already (get --at
	// computed them), so AGE is not computed again.
	TimesAtNow bool
	// Contexts, if set, are the context of each object: the table's first
	// column, CONTEXT, then NAMESPACE if Namespace.
	Contexts  []string
	Namespace bool
}

// defaultColumns is what kubectl shows for a kind the server cannot print.
var defaultColumns = []object.Column{
	{Name: "Name", Type: "string", Format: "name"},
	{Name: "Age", Type: "string"},
}

// Table builds the meta.k8s.io Table that `kubectl get` would have received
// for objs, from the server's columns and each object's cells, so that
// kubectl's own printers print it. AGE is recomputed at opts.Now (unless
// opts.TimesAtNow says the server's cells are as of then). Without
// columns (a server that cannot print the kind) the table has NAME and AGE.
func Table(kind Kind, columns []object.Column, objs []*object.Object, opts TableOptions) (*metav1.Table, error) {
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "Table"}}
	server := columns != nil
	if !server {
		columns = defaultColumns
	}
	ageAt := -1
	for i, c := range columns {
		t.ColumnDefinitions = append(t.ColumnDefinitions, metav1.TableColumnDefinition{
			Name: c.Name, Type: c.Type, Format: c.Format, Priority: c.Priority,
		})
		if strings.EqualFold(c.Name, "Age") {
			ageAt = i
		}
	}
	if server && opts.TimesAtNow {
		ageAt = -1 // the server's cells, computed at Now already
	}
	t.Rows = make([]metav1.TableRow, len(objs))
	// A row is its cells decoded and its AGE computed: on every core.
	err := parallel.Chunks(len(objs), parallel.Workers(len(objs)), func(_, lo, hi int) error {
		for i := lo; i < hi; i++ {
			row, err := tableRow(kind, objs[i], server, opts)
			if err != nil {
				return err
			}
			if ageAt >= 0 && ageAt < len(row.Cells) {
				served, _ := row.Cells[ageAt].(string)
				row.Cells[ageAt] = age(objs[i].JSON(), served, opts.Now)
			}
			if opts.Contexts != nil {
				row.Cells = slices.Insert(row.Cells, 0, contextCells(opts, i, objs[i])...)
			}
			t.Rows[i] = row
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if opts.Contexts != nil {
		t.ColumnDefinitions = slices.Insert(t.ColumnDefinitions, 0, contextColumns(opts)...)
	}
	return t, nil
}

// contextColumns are the columns a table of several contexts starts with.
func contextColumns(opts TableOptions) []metav1.TableColumnDefinition {
	cols := []metav1.TableColumnDefinition{{Name: "Context", Type: "string"}}
	if opts.Namespace {
		cols = append(cols, metav1.TableColumnDefinition{Name: "Namespace", Type: "string"})
	}
	return cols
}

// contextCells are the cells of the i-th object under contextColumns.
func contextCells(opts TableOptions, i int, obj *object.Object) []any {
	if opts.Namespace {
		return []any{opts.Contexts[i], obj.Namespace}
	}
	return []any{opts.Contexts[i]}
}

func tableRow(kind Kind, obj *object.Object, server bool, opts TableOptions) (metav1.TableRow, error) {
	var row metav1.TableRow
	if server {
		cells, err := obj.DecodeCells()
		if err != nil {
			return row, err
		}
		row.Cells = cells
	} else {
		row.Cells = []any{obj.Name, ""}
	}
	if opts.FullObjects {
		u, err := obj.Unstructured()
		if err != nil {
			return row, err
		}
		row.Object.Object = u
		return row, nil
	}
	m := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: kind.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: obj.Namespace},
	}
	if opts.Labels {
		if l := gjson.GetBytes(obj.JSON(), "metadata.labels"); l.Exists() {
			if err := json.Unmarshal([]byte(l.Raw), &m.Labels); err != nil {
				return row, fmt.Errorf("decoding the labels of %s/%s: %w", obj.Namespace, obj.Name, err)
			}
		}
	}
	row.Object.Object = m
	return row, nil
}

// List is the v1 List `kubectl get -o json|yaml|...` prints for several
// objects.
func List(objs []*object.Object) (*unstructured.UnstructuredList, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{
		"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""},
	}}
	list.Items = make([]unstructured.Unstructured, len(objs))
	for i, obj := range objs {
		u, err := obj.Unstructured()
		if err != nil {
			return nil, err
		}
		list.Items[i] = *u
	}
	return list, nil
}
