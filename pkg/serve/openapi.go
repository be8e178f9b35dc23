package serve

import (
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
	code        int
	contentType string
	etag        string
	body        []byte
	fetched     time.Time
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
	if doc.contentType != "" {
		w.Header().Set("Content-Type", doc.contentType)
	}
	if doc.etag != "" {
		w.Header().Set("Etag", doc.etag)
	}
	w.WriteHeader(doc.code)
	_, _ = w.Write(doc.body)
}

func (o *openAPI) fetch(r *http.Request) (*openAPIDoc, error) {
	req, err := http.NewRequestWithContext(r.Context(), http.MethodGet, o.host+r.URL.RequestURI(), nil)
	if err != nil {
		return nil, err
	}
	if a := r.Header.Get("Accept"); a != "" {
		req.Header.Set("Accept", a)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &openAPIDoc{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), etag: resp.Header.Get("Etag"), body: body, fetched: o.now()}, nil
}
