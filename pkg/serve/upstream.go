package serve

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// selfReviewPath matches the self reviews: questions a client asks about
// its own identity (may I? what may I? who am I?), which create nothing.
var selfReviewPath = regexp.MustCompile(`^/apis/(authorization\.k8s\.io/[^/]+/selfsubject(access|rules)reviews|authentication\.k8s\.io/[^/]+/selfsubjectreviews)$`)

// maxReviewBody bounds the body of a review passed to the server; a review
// is a few hundred bytes.
const maxReviewBody = 1 << 20

// passed says whether r, for path, is one of the requests Upstream passes
// to the API server: a self review.
func passed(r *http.Request, path string) bool {
	return r.Method == http.MethodPost && selfReviewPath.MatchString(path)
}

// Upstream passes the self reviews (SelfSubjectAccessReview,
// SelfSubjectRulesReview, SelfSubjectReview) to the API server at host,
// through transport (which holds the daemon's credentials: it serves its
// own identity only), and returns the server's answer as it is. They
// create nothing and ask about that identity: k9s asks whether it may
// list a kind before it lists it, `kubectl auth can-i` and `auth whoami`
// ask them; refused as writes (405), they would read as "no". They are
// the only requests passed to the server: objects, and what is not cached
// (a pod's log included), are answered from the stores or refused.
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
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeStatus(w, r, apierrors.NewServiceUnavailable("asking the API server: "+err.Error()))
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, maxReviewBody)
		proxy.ServeHTTP(w, r)
	}), nil
}
