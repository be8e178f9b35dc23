package output

import (
	"fmt"

	"k8s.io/client-go/util/jsonpath"
	"k8s.io/kubectl/pkg/cmd/get"
)

// checkColumns parses every custom column's path now: kubectl's printer
// would only find a bad one at the first object.
func checkColumns(p *get.CustomColumnsPrinter) error {
	for _, c := range p.Columns {
		if err := jsonpath.New(c.Header).Parse(c.FieldSpec); err != nil {
			return fmt.Errorf("custom column %s: error parsing jsonpath %s, %w", c.Header, c.FieldSpec, err)
		}
	}
	return nil
}
