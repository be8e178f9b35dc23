package timeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline/htmlpage"
)

// htmlOutput is --html FILE: the timeline written as one self-contained
// HTML page (pkg/timeline/htmlpage) instead of drawn.
type htmlOutput struct {
	// File is where the page goes ("-": standard output, "": not asked).
	File string
}

func (h *htmlOutput) addFlags(c *cobra.Command) {
	c.Flags().StringVar(&h.File, "html", "", "Write the timeline as one self-contained HTML page to this file (- for standard output): lanes, zoom and each revision's diff, to open without a server")
	_ = c.MarkFlagFilename("html", "html")
}

// writeHTML writes the page of q, to a file beside FILE renamed to it
// when complete (a failure leaves no half page), and says on standard
// error what it holds.
func (o *TimelineOptions) writeHTML(ctx context.Context, srcs *opened, q timeline.Query) error {
	opts := htmlpage.Options{Title: htmlTitle(srcs, q), Now: o.now}
	if o.html.File == "-" {
		_, err := htmlpage.Write(ctx, o.Out, srcs.clusters, q, opts)
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(o.html.File), "."+filepath.Base(o.html.File)+".*")
	if err != nil {
		return fmt.Errorf("writing --html: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone once renamed
	st, err := htmlpage.Write(ctx, tmp, srcs.clusters, q, opts)
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("writing %s: %w", o.html.File, cerr)
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.html.File)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.ErrOut, "wrote %s: %s, %s, %s, %d bytes\n", o.html.File, count(st.Lanes, "lane"), count(st.Marks, "mark"), count(st.Revisions, "revision"), st.Bytes)
	return nil
}

// htmlTitle names what the page shows: the kinds, the namespace, the
// contexts.
func htmlTitle(srcs *opened, q timeline.Query) string {
	var kinds, contexts, own []string
	for _, k := range srcs.kinds {
		kinds = append(kinds, k.Name)
	}
	for _, s := range srcs.clusters {
		contexts = append(contexts, s.Context)
		if s.Namespace != "" {
			own = append(own, s.Context+": "+s.Namespace)
		}
	}
	where := "every namespace"
	switch {
	case q.Namespace != "":
		where = "namespace " + q.Namespace
	case len(own) > 0:
		where = "each context's namespace (" + strings.Join(own, ", ") + ")"
	}
	return fmt.Sprintf("Timeline of %s in %s (%s)", strings.Join(kinds, ", "), where, strings.Join(contexts, ", "))
}

// count is n things: "1 lane", "2 lanes".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
