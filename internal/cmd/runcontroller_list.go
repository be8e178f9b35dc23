package cmd

import (
	"bytes"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
)

// printBuiltins writes the table of `run-controller --list`: NAME,
// DESCRIPTION, READS, WRITES, one built-in a row, in kubectl's plain style
// (no borders, columns three spaces apart, no spaces at line ends).
func printBuiltins(w io.Writer, bs []builtin.Spec) error {
	rows := make([][]string, 0, len(bs))
	for _, b := range bs {
		rows = append(rows, []string{b.Name, b.Description, strings.Join(b.Reads, ","), strings.Join(b.Writes, ",")})
	}
	return printPlainTable(w, []string{"NAME", "DESCRIPTION", "READS", "WRITES"}, rows)
}

// printPlainTable writes header and rows in kubectl's plain style: no
// borders, columns three spaces apart, no spaces at line ends.
func printPlainTable(w io.Writer, header []string, rows [][]string) error {
	var buf bytes.Buffer
	cells := tw.CellConfig{
		Alignment:  tw.CellAlignment{Global: tw.AlignLeft},
		Padding:    tw.CellPadding{Global: tw.Padding{Right: "   ", Overwrite: true}},
		Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
	}
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off, ShowHeader: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off, ShowTop: tw.Off, ShowBottom: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{Header: cells, Row: cells}),
	)
	t.Header(header)
	for _, r := range rows {
		if err := t.Append(r); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	var out strings.Builder
	for line := range strings.Lines(buf.String()) {
		out.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
	_, err := io.WriteString(w, out.String())
	return err
}
