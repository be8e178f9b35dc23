package serve

import (
	"github.com/kubectl-reflect/kubectl-reflect/pkg/kube"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// ServedScope is s as a reflector the Handler serves from must read it:
// with the server's Tables (kubectl asks for them), whole objects (a
// client may ask for managedFields, which a Prune would drop) and packed
// (such a store lives long).
func ServedScope(s kube.Scope) kube.Scope {
	s.Table, s.Pack, s.Prune = true, true, object.Prune{}
	return s
}
