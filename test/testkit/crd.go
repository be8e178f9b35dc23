package testkit

import (
	"fmt"
	"strings"
)

// CRD is a namespaced custom resource definition as the tests declare
// one: its group and names, one version served and stored, its schema and
// printer columns. YAML is its manifest, for kubectl apply.
type CRD struct {
	Group, Kind, Plural, Singular string
	ShortNames                    []string
	// Version is its one version: v1 when empty.
	Version string
	// Schema is its openAPIV3Schema in YAML's flow style: when empty, an
	// object whose spec holds any fields.
	Schema string
	// Columns are its additionalPrinterColumns, each in YAML's flow
	// style: {name: Size, type: integer, jsonPath: .spec.size}.
	Columns []string
}

// Widget is the tests' custom resource: widgets.GROUP, kind Widget, any
// spec.
func Widget(group string) CRD {
	return CRD{Group: group, Kind: "Widget", Plural: "widgets", Singular: "widget"}
}

// Name is the CRD's name: PLURAL.GROUP.
func (c CRD) Name() string { return c.Plural + "." + c.Group }

// YAML is the CRD's manifest.
func (c CRD) YAML() string {
	version, schema := c.Version, c.Schema
	if version == "" {
		version = "v1"
	}
	if schema == "" {
		schema = "{type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s\nspec:\n  group: %s\n", c.Name(), c.Group)
	fmt.Fprintf(&b, "  names: {kind: %s, plural: %s, singular: %s", c.Kind, c.Plural, c.Singular)
	if len(c.ShortNames) > 0 {
		fmt.Fprintf(&b, ", shortNames: [%s]", strings.Join(c.ShortNames, ", "))
	}
	fmt.Fprintf(&b, "}\n  scope: Namespaced\n  versions:\n  - name: %s\n    served: true\n    storage: true\n", version)
	fmt.Fprintf(&b, "    schema:\n      openAPIV3Schema: %s\n", schema)
	if len(c.Columns) > 0 {
		b.WriteString("    additionalPrinterColumns:\n")
		for _, col := range c.Columns {
			fmt.Fprintf(&b, "    - %s\n", col)
		}
	}
	return b.String()
}
