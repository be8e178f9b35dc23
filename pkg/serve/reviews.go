package serve

import (
	"bytes"
	"io"
	"net/http"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// selfReviewPath matches the self reviews: questions a client asks about
// its own identity (may I? what may I? who am I?), which create nothing.
var selfReviewPath = regexp.MustCompile(`^/apis/(authorization\.k8s\.io/[^/]+/selfsubject(access|rules)reviews|authentication\.k8s\.io/[^/]+/selfsubjectreviews)$`)

// maxReviewBody bounds the body of a review passed to the server; a review
// is a few hundred bytes.
const maxReviewBody = 1 << 20

// Reviews answers the POSTs of self reviews (SelfSubjectAccessReview,
// SelfSubjectRulesReview, SelfSubjectReview) with the API server's answer,
// asked through client at host: the identity they ask about is the
// daemon's, the one it serves. k9s asks whether it may list a kind before
// it lists it, and `kubectl auth can-i` and `kubectl auth whoami` ask
// them; refused as writes (405) they would read as "no". They are the only
// requests passed to the server; objects never are.
func Reviews(client *http.Client, host string) http.Handler {
	return &reviews{client: client, host: host}
}

type reviews struct {
	client *http.Client
	host   string
}

func (v *reviews) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxReviewBody))
	if err != nil {
		writeStatus(w, r, badRequest("reading the review: %v", err))
		return
	}
	resp, err := forward(v.client, v.host, r, body)
	if err != nil {
		writeStatus(w, r, apierrors.NewServiceUnavailable("asking the API server: "+err.Error()))
		return
	}
	resp.write(w)
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
