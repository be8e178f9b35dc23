package moment

import (
	"fmt"

	"github.com/tidwall/gjson"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Selector is -l and --field-selector as a test of a recorded object:
// labels as the API server selects them, fields on metadata.name and
// metadata.namespace (the history does not know each kind's other field
// labels; flag names the verb's flag in the error).
func Selector(flag, labelSelector, fieldSelector string) (func(*object.Object) bool, error) {
	ls, err := labels.Parse(labelSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid label selector %q: %w", labelSelector, err)
	}
	fs, err := fields.ParseSelector(fieldSelector)
	if err != nil {
		return nil, fmt.Errorf("invalid field selector %q: %w", fieldSelector, err)
	}
	for _, req := range fs.Requirements() {
		if req.Field != "metadata.name" && req.Field != "metadata.namespace" {
			return nil, fmt.Errorf("%s selects fields metadata.name and metadata.namespace only, not %q", flag, req.Field)
		}
	}
	return func(obj *object.Object) bool {
		if !fs.Empty() && !fs.Matches(fields.Set{"metadata.name": obj.Name, "metadata.namespace": obj.Namespace}) {
			return false
		}
		if ls.Empty() {
			return true
		}
		set := labels.Set{}
		gjson.GetBytes(obj.JSON(), "metadata.labels").ForEach(func(k, v gjson.Result) bool {
			set[k.Str] = v.Str
			return true
		})
		return ls.Matches(set)
	}, nil
}
