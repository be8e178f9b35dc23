package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// upstream is an API server that answers every request with a review's
// answer and records what it was asked.
type upstream struct {
	mu   sync.Mutex
	seen []string // "METHOD URI Authorization body"
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	u.mu.Lock()
	u.seen = append(u.seen, strings.Join([]string{r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), string(body)}, " "))
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, `{"kind":"SelfSubjectAccessReview","status":{"allowed":true}}`)
}

func (u *upstream) asked() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.seen
}

// newUpstreamFixture is a fixture whose handler passes requests to up.
func newUpstreamFixture(t *testing.T, up *upstream) *fixture {
	t.Helper()
	api := httptest.NewServer(up)
	t.Cleanup(api.Close)
	h, err := Upstream(api.Client().Transport, api.URL)
	if err != nil {
		t.Fatal(err)
	}
	return newFixtureOpts(t, 16, Options{Upstream: h})
}

// TestUpstreamReviews: the self reviews are passed to the API server, with
// the daemon's credentials rather than the client's token, and its answer
// returned as it is; other reviews, which ask about someone else, are
// refused as writes, as they are without Upstream; nothing else is passed
// (a pod's log is not cached).
func TestUpstreamReviews(t *testing.T) {
	up := &upstream{}
	fx, bare := newUpstreamFixture(t, up), newFixture(t, 16)
	const review = `{"spec":{"resourceAttributes":{"verb":"list","resource":"pods"}}}`
	tests := []struct {
		fx     *fixture
		path   string
		code   int
		passed bool
	}{
		{fx, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", 201, true},
		{fx, "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews?dryRun=All", 201, true},
		{fx, "/apis/authentication.k8s.io/v1/selfsubjectreviews", 201, true},
		{fx, "/apis/authorization.k8s.io/v1/subjectaccessreviews", 405, false},
		{fx, "/apis/authorization.k8s.io/v1/namespaces/a/localsubjectaccessreviews", 405, false},
		{fx, "/apis/authentication.k8s.io/v1/tokenreviews", 405, false},
		{fx, "/api/v1/namespaces/a/pods/p/log", 405, false}, // a POST
		{bare, "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", 405, false},
	}
	for _, tt := range tests {
		up.seen = nil
		code, body, err := tt.fx.post(tt.path, review)
		if err != nil {
			t.Fatal(err)
		}
		if code != tt.code {
			t.Errorf("POST %s = %d %s, want %d", tt.path, code, body, tt.code)
		}
		want := []string(nil)
		if tt.passed {
			want = []string{"POST " + tt.path + "  " + review}
			if !strings.Contains(body, `"allowed":true`) {
				t.Errorf("POST %s answered %s, not the server's answer", tt.path, body)
			}
		}
		if got := up.asked(); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("POST %s: the server saw %q, want %q", tt.path, got, want)
		}
	}
	if code, _, _ := fx.post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", review, "Authorization", ""); code != 401 {
		t.Errorf("a review without the daemon's token = %d, want 401", code)
	}
	up.seen = nil
	if code, body := fx.do("GET", "/api/v1/namespaces/a/pods/p/log", "Authorization", "Bearer secret"); code != 404 || !strings.Contains(body, "is not cached") || len(up.asked()) != 0 {
		t.Errorf("a pod's log = %d %s (the server asked %d times), want 404 not cached", code, body, len(up.asked()))
	}
}
