package output

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// StreamsList says whether WriteList prints format: kubectl's json and yaml.
func StreamsList(format string) bool { return format == "json" || format == "yaml" }

// WriteList writes objs as kubectl's json or yaml printer prints List(objs),
// byte for byte, but one object at a time: each is decoded, printed and let
// go before the next, so that printing holds one object's maps at once
// instead of the whole List's (and kubectl's printers marshal the whole
// List, then indent a copy of it). Each object goes through the same
// decoding and encoding kubectl's printer gives it inside the List (maps,
// sorted keys, HTML escaped, four-space indents for json; sigs.k8s.io/yaml
// at the item's depth for yaml, whose emitter folds long lines by column).
func WriteList(w io.Writer, format string, objs []*object.Object) error {
	var write func(*bufio.Writer, []*object.Object) error
	switch format {
	case "json":
		write = writeJSONList
	case "yaml":
		write = writeYAMLList
	default:
		return fmt.Errorf("no streaming list printer for %q", format)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := write(bw, objs); err != nil {
		return err
	}
	return bw.Flush()
}

// The List's own fields around "items", as json.MarshalIndent(list, "", "    ")
// lays them out.
const (
	jsonListHead = "{\n    \"apiVersion\": \"v1\",\n    \"items\": ["
	jsonListTail = "    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	// jsonItemIndent is the prefix of an item's lines: an item of the
	// List's "items" sits two levels deep.
	jsonItemIndent = "        "
)

func writeJSONList(w *bufio.Writer, objs []*object.Object) error {
	w.WriteString(jsonListHead)
	if len(objs) == 0 {
		w.WriteString("],\n")
		w.WriteString(jsonListTail)
		return nil
	}
	var indented bytes.Buffer
	for i, obj := range objs {
		u, err := obj.Unstructured()
		if err != nil {
			return err
		}
		compact, err := json.Marshal(u.Object)
		if err != nil {
			return fmt.Errorf("encoding %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		indented.Reset()
		if err := json.Indent(&indented, compact, jsonItemIndent, "    "); err != nil {
			return fmt.Errorf("indenting %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		if i > 0 {
			w.WriteByte(',')
		}
		w.WriteString("\n" + jsonItemIndent)
		if _, err := w.Write(indented.Bytes()); err != nil {
			return err // the reader went away: stop decoding
		}
	}
	w.WriteString("\n    ],\n")
	_, err := w.WriteString(jsonListTail)
	return err
}

// The List's own fields around "items" in YAML.
const (
	yamlListTail = "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
	yamlItemsKey = "items:\n"
)

// writeYAMLList prints each item as the YAML of {"items": [item]} without its
// first line: the item at the column it has in the whole List, where the
// emitter folds its long strings.
func writeYAMLList(w *bufio.Writer, objs []*object.Object) error {
	w.WriteString("apiVersion: v1\n")
	if len(objs) == 0 {
		w.WriteString("items: []\n")
		_, err := w.WriteString(yamlListTail)
		return err
	}
	w.WriteString(yamlItemsKey)
	for _, obj := range objs {
		u, err := obj.Unstructured()
		if err != nil {
			return err
		}
		doc, err := yaml.Marshal(map[string]any{"items": []any{u.Object}})
		if err != nil {
			return fmt.Errorf("encoding %s/%s: %w", obj.Namespace, obj.Name, err)
		}
		item, ok := bytes.CutPrefix(doc, []byte(yamlItemsKey))
		if !ok {
			return fmt.Errorf("encoding %s/%s: unexpected YAML %.40q", obj.Namespace, obj.Name, doc)
		}
		if _, err := w.Write(item); err != nil {
			return err // the reader went away: stop decoding
		}
	}
	_, err := w.WriteString(yamlListTail)
	return err
}
