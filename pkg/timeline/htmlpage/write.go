package htmlpage

import (
	"bufio"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/timeline"
)

//go:embed page.html page.css page.js yamldiff.js
var assets embed.FS

var page = template.Must(template.ParseFS(assets, "page.html"))

// Options say what the page is titled and how its data is chunked.
type Options struct {
	// Title heads the page (default "kubectl reflect timeline").
	Title string
	// Command is the command line that wrote it, shown under the title.
	Command string
	// ChunkBytes is how many bytes of revisions' JSON a chunk holds at
	// most before the next lane starts another (default 4 MiB): the
	// memory Write holds, and what the page decompresses on a click.
	ChunkBytes int
	// Now is when the page was written (default time.Now).
	Now func() time.Time
}

// Stats say what Write wrote.
type Stats struct {
	Lanes, Marks, Revisions, Chunks int
	// Bytes is the page's size.
	Bytes int64
}

// meta is the page's header, plain JSON: what every chunk's times are
// relative to (Since, in Unix milliseconds) and what its indexes name.
type meta struct {
	Title    string     `json:"title"`
	Command  string     `json:"command,omitempty"`
	Written  string     `json:"written"`
	Since    int64      `json:"since"`
	Until    int64      `json:"until"`
	Contexts []string   `json:"contexts"`
	Kinds    []kindMeta `json:"kinds"`
	Types    []string   `json:"types"`
}

type kindMeta struct {
	Name     string `json:"name"`
	Resource string `json:"resource"`
}

// Write writes the page of q's timeline of src to w: the marks of every
// lane read (timeline.Build), then lane by lane each one's revisions read
// from its source's store and streamed into the page.
func Write(ctx context.Context, w io.Writer, src []timeline.Cluster, q timeline.Query, o Options) (Stats, error) {
	if q.Until.IsZero() {
		q.Until = time.Now()
	}
	o = o.withDefaults()
	cw := &countingWriter{w: w}
	bw := bufio.NewWriterSize(cw, 64<<10)
	m := newMeta(src, q, o)
	head, err := json.Marshal(m)
	if err != nil {
		return Stats{}, err
	}
	if err := page.ExecuteTemplate(bw, "head", headData{Title: m.Title, CSS: template.CSS(asset("page.css")), Meta: template.JS(head)}); err != nil {
		return Stats{}, fmt.Errorf("writing the page: %w", err)
	}
	d := newData(bw, m, o.ChunkBytes)
	stores := map[string]history.Record{}
	for _, s := range src {
		stores[s.Context] = s.Record
	}
	// The marks first (timeline.Build: no object is read), then each
	// lane's revisions: one connection to a history at a time, so that
	// SQLite maps its file once (reading revisions while the marks'
	// query is open would take a second connection, and a second map).
	tl, err := timeline.Build(ctx, src, q)
	if err != nil {
		return Stats{}, err
	}
	for l := range tl.Lanes() {
		if err := d.lane(ctx, stores[l.Context], l); err != nil {
			return Stats{}, err
		}
	}
	if err := d.close(); err != nil {
		return Stats{}, err
	}
	if err := page.ExecuteTemplate(bw, "tail", tailData{YAML: template.JS(asset("yamldiff.js")), JS: template.JS(asset("page.js"))}); err != nil {
		return Stats{}, fmt.Errorf("writing the page: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return Stats{}, fmt.Errorf("writing the page: %w", err)
	}
	st := d.stats
	st.Bytes = cw.n
	return st, nil
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "kubectl reflect timeline"
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = 4 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

func newMeta(src []timeline.Cluster, q timeline.Query, o Options) meta {
	m := meta{Title: o.Title, Command: o.Command, Written: o.Now().UTC().Format(time.RFC3339),
		Since: q.Since.UnixMilli(), Until: q.Until.UnixMilli()}
	for _, s := range src {
		m.Contexts = append(m.Contexts, s.Context)
	}
	for _, k := range q.Kinds {
		m.Kinds = append(m.Kinds, kindMeta{Name: k.Name, Resource: k.Resource})
	}
	for t := range timeline.Warning + 1 {
		m.Types = append(m.Types, t.String())
	}
	return m
}

type headData struct {
	Title string
	CSS   template.CSS
	Meta  template.JS
}

type tailData struct{ YAML, JS template.JS }

// asset is an embedded file's text.
func asset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	return string(b)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
