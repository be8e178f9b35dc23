package serve

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"time"
)

// OpenAPI answers /openapi/v2 and /openapi/v3[/...] with what the API
// server at host answers through client (its schemas: kubectl reads them to
// validate and to patch before it writes, which this cache then refuses
// with a clear 405), kept for ttl per path and Accept. Only these
// documents are fetched from the server; objects never are.
func OpenAPI(client *http.Client, host string, ttl time.Duration, now func() time.Time) http.Handler {
	return &openAPI{client: client, host: host, ttl: ttl, now: now, kept: map[string]*openAPIDoc{}}
}

type openAPI struct {
	client *http.Client
	host   string
	ttl    time.Duration
	now    func() time.Time

	mu   sync.Mutex
	kept map[string]*openAPIDoc // by request URI and Accept
}

type openAPIDoc struct {
	*answer
	fetched time.Time
}

func (o *openAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key := r.URL.RequestURI() + "\x00" + r.Header.Get("Accept")
	o.mu.Lock()
	doc, ok := o.kept[key]
	o.mu.Unlock()
	if !ok || o.now().Sub(doc.fetched) > o.ttl {
		var err error
		if doc, err = o.fetch(r); err != nil {
			writeStatus(w, r, notFoundPath())
			return
		}
		if doc.code == http.StatusOK {
			o.mu.Lock()
			o.kept[key] = doc
			o.mu.Unlock()
		}
	}
	doc.write(w)
}

func (o *openAPI) fetch(r *http.Request) (*openAPIDoc, error) {
	get := r.Clone(r.Context())
	get.Method = http.MethodGet // a HEAD too
	a, err := forward(o.client, o.host, get, nil)
	if err != nil {
		return nil, err
	}
	return &openAPIDoc{answer: a, fetched: o.now()}, nil
}

// answer is an API server's answer, read whole.
type answer struct {
	code        int
	contentType string
	etag        string
	body        []byte
}

func (a *answer) write(w http.ResponseWriter) {
	if a.contentType != "" {
		w.Header().Set("Content-Type", a.contentType)
	}
	if a.etag != "" {
		w.Header().Set("Etag", a.etag)
	}
	w.WriteHeader(a.code)
	_, _ = w.Write(a.body)
}

// forward asks the server at host, through client (whose credentials are
// the daemon's), what r asks, with body, and reads its answer. Only the
// method, the path and query, Accept and Content-Type go: not r's
// credentials, which are the daemon's token.
func forward(client *http.Client, host string, r *http.Request, body []byte) (*answer, error) {
	var in io.Reader
	if body != nil {
		in = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, host+r.URL.RequestURI(), in)
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Accept", "Content-Type"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), etag: resp.Header.Get("Etag"), body: out}, nil
}
