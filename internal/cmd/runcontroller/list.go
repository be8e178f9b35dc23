package runcontroller

import (
	"io"
	"strings"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// printBuiltins writes the table of `run-controller --list`: NAME,
// DESCRIPTION, READS, WRITES, one built-in a row, in kubectl's plain style
// (no borders, columns three spaces apart, no spaces at line ends).
func printBuiltins(w io.Writer, bs []builtin.Spec) error {
	rows := make([][]string, 0, len(bs))
	for _, b := range bs {
		rows = append(rows, []string{b.Name, b.Description, strings.Join(b.Reads, ","), strings.Join(b.Writes, ",")})
	}
	return output.PlainTable(w, []string{"NAME", "DESCRIPTION", "READS", "WRITES"}, rows)
}
