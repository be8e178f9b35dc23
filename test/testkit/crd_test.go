package testkit

import "testing"

// TestCRDYAML: a CRD's manifest says what its fields say, with the
// defaults where they are empty.
func TestCRDYAML(t *testing.T) {
	for _, tt := range []struct {
		crd  CRD
		want string
	}{
		{Widget("example.com"), `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, properties: {spec: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`},
		{CRD{Group: "g.io", Kind: "Dial", Plural: "dials", Singular: "dial", ShortNames: []string{"dl", "di"}, Version: "v2", Schema: "{type: object}",
			Columns: []string{"{name: Age, type: date, jsonPath: .metadata.creationTimestamp}"}}, `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: dials.g.io
spec:
  group: g.io
  names: {kind: Dial, plural: dials, singular: dial, shortNames: [dl, di]}
  scope: Namespaced
  versions:
  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object}
    additionalPrinterColumns:
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`},
	} {
		if got := tt.crd.YAML(); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.crd.Name(), got, tt.want)
		}
	}
}
