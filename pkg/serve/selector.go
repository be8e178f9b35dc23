package serve

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// selectableFields are the field labels the API server accepts for a
// resource beyond metadata.name and metadata.namespace (which every
// resource has), with the JSON path each reads where it is not the label
// itself. Custom resources add theirs (their selectableFields) through
// Resource.SelectableFields.
var selectableFields = map[schema.GroupResource]map[string]string{
	{Resource: "pods"}: {
		"spec.nodeName": "", "spec.restartPolicy": "", "spec.schedulerName": "", "spec.serviceAccountName": "",
		"spec.hostNetwork": "", "status.phase": "", "status.podIP": "", "status.podIPs": "status.podIPs.0.ip",
		"status.nominatedNodeName": "",
	},
	{Resource: "secrets"}:                    {"type": ""},
	{Resource: "nodes"}:                      {"spec.unschedulable": ""},
	{Resource: "namespaces"}:                 {"status.phase": ""},
	{Resource: "services"}:                   {"spec.clusterIP": "", "spec.type": ""},
	{Resource: "replicationcontrollers"}:     {"status.replicas": ""},
	{Group: "apps", Resource: "replicasets"}: {"status.replicas": ""},
	{Group: "batch", Resource: "jobs"}:       {"status.successful": ""},
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}: {"spec.signerName": ""},
	{Resource: "events"}: {
		"involvedObject.kind": "", "involvedObject.namespace": "", "involvedObject.name": "", "involvedObject.uid": "",
		"involvedObject.apiVersion": "", "involvedObject.resourceVersion": "", "involvedObject.fieldPath": "",
		"reason": "", "reportingComponent": "", "source": "source.component", "type": "",
	},
}

// filter is what a LIST or WATCH keeps: a namespace, a label selector and
// a field selector.
type filter struct {
	namespace string
	labels    labels.Selector
	fields    []fieldTest
	empty     bool // no selector at all: every object of the namespace
}

type fieldTest struct {
	path  string // gjson path; "" for metadata.name and metadata.namespace
	field string
	op    selection.Operator
	value string
}

// newFilter parses the selectors of a request for resource c, refusing
// what the API server refuses: a malformed selector, a field label the
// resource does not have.
func newFilter(c *cached, namespace, labelSel, fieldSel string) (*filter, error) {
	ls, err := labels.Parse(labelSel)
	if err != nil {
		return nil, invalidSelector(err)
	}
	fs, err := fields.ParseSelector(fieldSel)
	if err != nil {
		return nil, invalidSelector(err)
	}
	f := &filter{namespace: namespace, labels: ls}
	for _, req := range fs.Requirements() {
		path, ok := c.fieldPath(req.Field)
		if !ok {
			return nil, invalidSelector(c.unknownField(req.Field))
		}
		f.fields = append(f.fields, fieldTest{path: path, field: req.Field, op: req.Operator, value: req.Value})
	}
	f.empty = ls.Empty() && len(f.fields) == 0
	return f, nil
}

// unknownField is the API server's error for a field label that c's
// resource does not have: built-in resources with no field labels of their
// own answer with apimachinery's default conversion, the others (custom
// resources, built-ins with their own labels) with "not supported".
func (c *cached) unknownField(field string) error {
	if _, own := selectableFields[c.res.GVR.GroupResource()]; own || !builtIn(c.res.GVR.Group) {
		return fmt.Errorf("field label not supported: %s", field)
	}
	return fmt.Errorf("%q is not a known field selector: only %q, %q", field, "metadata.name", "metadata.namespace")
}

// builtIn says whether a group is one of Kubernetes' own (the core group,
// apps, batch, *.k8s.io), not one that a custom resource definition adds.
func builtIn(group string) bool {
	return !strings.Contains(group, ".") || strings.HasSuffix(group, ".k8s.io")
}

// fieldPath is the gjson path of a field label of c's resource.
func (c *cached) fieldPath(field string) (string, bool) {
	switch field {
	case "metadata.name", "metadata.namespace":
		return "", true
	}
	if slices.Contains(c.SelectableFields, field) {
		return gjsonPath(field), true
	}
	path, ok := selectableFields[c.res.GVR.GroupResource()][field]
	if !ok {
		return "", false
	}
	if path == "" {
		path = field
	}
	return gjsonPath(path), true
}

func gjsonPath(field string) string {
	parts := strings.Split(strings.TrimPrefix(field, "."), ".")
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err != nil {
			parts[i] = gjson.Escape(p)
		}
	}
	return strings.Join(parts, ".")
}

// matches says whether the filter keeps o.
func (f *filter) matches(o *object.Object) bool {
	if f.namespace != "" && o.Namespace != f.namespace {
		return false
	}
	if f.empty {
		return true
	}
	var raw []byte // read once, when a selector needs the JSON
	doc := func() []byte {
		if raw == nil {
			raw = o.JSON()
		}
		return raw
	}
	for _, t := range f.fields {
		var v string
		switch {
		case t.field == "metadata.name":
			v = o.Name
		case t.field == "metadata.namespace":
			v = o.Namespace
		default:
			v = gjson.GetBytes(doc(), t.path).String()
		}
		if (v == t.value) == (t.op == selection.NotEquals) {
			return false
		}
	}
	if f.labels.Empty() {
		return true
	}
	return object.MatchLabels(f.labels)(o)
}

// byContent says whether the filter reads more of an object than its key
// (a label selector, a field other than metadata.name and
// metadata.namespace): whether it matched an earlier version can then
// differ from whether it matches this one.
func (f *filter) byContent() bool {
	if !f.labels.Empty() {
		return true
	}
	for _, t := range f.fields {
		if t.field != "metadata.name" && t.field != "metadata.namespace" {
			return true
		}
	}
	return false
}

// keepsKey says whether an object of key (namespace, name) may match: the
// store's cheap pre-filter for a subscription (store.SubscribeOptions.Keep).
func (f *filter) keepsKey(namespace, name string) bool {
	if f.namespace != "" && namespace != f.namespace {
		return false
	}
	for _, t := range f.fields {
		if t.field == "metadata.name" && (name == t.value) == (t.op == selection.NotEquals) {
			return false
		}
	}
	return true
}
