package serve

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

var (
	// selfReviewPath matches the self reviews: questions a client asks
	// about its own identity (may I? what may I? who am I?), which create
	// nothing.
	selfReviewPath = regexp.MustCompile(`^/apis/(authorization\.k8s\.io/[^/]+/selfsubject(access|rules)reviews|authentication\.k8s\.io/[^/]+/selfsubjectreviews)$`)
	// podLogPath matches a pod's log.
	podLogPath = regexp.MustCompile(`^/api/v1/namespaces/[^/]+/pods/[^/]+/log$`)
)

// maxReviewBody bounds the body of a review passed to the server; a review
// is a few hundred bytes.
const maxReviewBody = 1 << 20

// passed says whether r, for path, is one of the requests Upstream passes
// to the API server: a self review (POST), or a pod's log (GET).
func passed(r *http.Request, path string) bool {
	switch r.Method {
	case http.MethodPost:
		return selfReviewPath.MatchString(path)
	case http.MethodGet, http.MethodHead:
		return podLogPath.MatchString(path)
	}
	return false
}

// Upstream passes to the API server at host, through transport (which
// holds the daemon's credentials: it serves its own identity only), the
// few requests a cache cannot answer but a read-only client needs, and
// returns the server's answer as it comes: the self reviews (k9s asks
// whether it may list a kind before it lists it; `kubectl auth can-i` and
// `auth whoami` ask them), which create nothing, and pods' logs (`kubectl
// logs`, k9s's log view; followed, they stream). Refused as writes (405),
// the reviews would read as "no". Objects are never passed: they are
// answered from the stores or refused.
func Upstream(transport http.RoundTripper, host string) (http.Handler, error) {
	target, err := url.Parse(host)
	if err != nil {
		return nil, err
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = ""
			pr.Out.Header.Del("Authorization") // the daemon's token; transport adds the server's credentials
			pr.Out.Header.Del("Cookie")
		},
		Transport:     transport,
		FlushInterval: -1, // a followed log line by line
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeStatus(w, r, apierrors.NewServiceUnavailable("asking the API server: "+err.Error()))
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.Body = http.MaxBytesReader(w, r.Body, maxReviewBody)
		}
		proxy.ServeHTTP(w, r)
	}), nil
}
