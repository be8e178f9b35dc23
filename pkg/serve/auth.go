package serve

import (
	"crypto/subtle"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// WithToken lets through to next only the requests that carry
// "Authorization: Bearer TOKEN" (compared in constant time), and the
// health checks (/healthz, /livez, /readyz), which tell nothing about the
// objects. The others are answered 401 Unauthorized, as the API server
// answers them.
func WithToken(next http.Handler, token string) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch strings.TrimSuffix(r.URL.Path, "/") {
		case "/healthz", "/livez", "/readyz":
			next.ServeHTTP(w, r)
			return
		}
		got := []byte(r.Header.Get("Authorization"))
		if token == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			writeStatus(w, r, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
