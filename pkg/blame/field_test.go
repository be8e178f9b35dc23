package blame

import (
	"strings"
	"testing"
)

// TestParseField: the field's forms are object.ParsePath's (its tests
// hold them all); what names more than one field is refused, on one line
// that names the text.
func TestParseField(t *testing.T) {
	for _, tt := range []struct{ in, want, err string }{
		{in: "{.spec.replicas}", want: "spec.replicas"},
		{in: "spec.template.spec.containers[0].image", want: "spec.template.spec.containers[0].image"},
		{in: `metadata.labels["app.kubernetes.io/name"]`, want: "metadata.labels['app.kubernetes.io/name']"},
		{in: "spec.containers[*].image", err: `invalid field path "spec.containers[*].image": [*] names every element, and a field's log follows one field`},
		{in: "{.items[*].data}", err: `invalid field path "{.items[*].data}": [*] names every element`},
		{in: "data..mode", err: `invalid field path "data..mode": an empty key after "data."`},
		{in: "", err: `invalid field path "": it names no field`},
	} {
		t.Run(tt.in, func(t *testing.T) {
			p, err := ParseField(tt.in)
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err == "" && p.String() != tt.want:
				t.Errorf("ParseField = %q, want %q", p, tt.want)
			case tt.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.err) || strings.Contains(err.Error(), "\n")):
				t.Errorf("ParseField = %v, want one line %q...", err, tt.err)
			}
		})
	}
}
