package blame

import (
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// ParseField reads the field blame --field follows (object.ParsePath's
// forms) and refuses a path with [*]: a field's log follows one field,
// and [*] names every element.
func ParseField(text string) (object.Path, error) {
	p, err := object.ParsePath(text)
	if err != nil {
		return object.Path{}, err
	}
	if p.Wildcard() {
		return object.Path{}, fmt.Errorf("invalid field path %q: [*] names every element, and a field's log follows one field: name one ([0], ['key'])", text)
	}
	return p, nil
}
