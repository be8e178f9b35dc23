package merge

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// maxBody bounds a cluster's answer to a GET or LIST read in memory.
const maxBody = 1 << 30

// request is r sent to cluster c with query q (r's own when nil).
func request(r *http.Request, c Cluster, q url.Values) (*http.Request, error) {
	u := *c.Server
	u.Path = strings.TrimSuffix(u.Path, "/") + r.URL.Path
	u.RawQuery = r.URL.RawQuery
	if q != nil {
		u.RawQuery = q.Encode()
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, u.String(), nil)
	if err != nil {
		return nil, err
	}
	for _, h := range []string{"Accept", "User-Agent"} {
		if v := r.Header.Get(h); v != "" {
			out.Header.Set(h, v)
		}
	}
	return out, nil
}

// forward answers r with c's answer, as it is.
func (h *Handler) forward(w http.ResponseWriter, r *http.Request, c Cluster) {
	req, err := request(r, c, nil)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, "BadRequest", err.Error())
		return
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		writeUnreachable(w, c, err)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// answer is a cluster's whole answer to a GET or LIST.
type answer struct {
	code        int
	contentType string
	body        []byte
	err         error // no answer
}

// fetch asks every cluster r, with the query each one's q gives, at once.
func (h *Handler) fetch(r *http.Request, q func(Cluster) url.Values) []answer {
	out := make([]answer, len(h.clusters))
	var wg sync.WaitGroup
	for i, c := range h.clusters {
		wg.Go(func() { out[i] = fetchOne(r, c, q(c)) })
	}
	wg.Wait()
	return out
}

func fetchOne(r *http.Request, c Cluster, q url.Values) answer {
	req, err := request(r, c, q)
	if err != nil {
		return answer{err: err}
	}
	resp, err := c.Client.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return answer{err: err}
	}
	return answer{code: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body}
}

// writeClusterError writes a cluster's failure as the view's: its Status
// with its message after the cluster's name, or 503 when it gave no
// answer.
func writeClusterError(w http.ResponseWriter, c Cluster, a answer) {
	if a.err != nil {
		writeUnreachable(w, c, a.err)
		return
	}
	var st metav1.Status
	if json.Unmarshal(a.body, &st) != nil || st.Kind != "Status" {
		st = metav1.Status{Code: int32(a.code), Reason: metav1.StatusReasonUnknown, Message: strings.TrimSpace(string(a.body))}
	}
	st.Message = "context " + c.Name + ": " + st.Message
	st.Code = int32(a.code)
	writeStatusObject(w, st)
}

// writeUnreachable says cluster c did not answer.
func writeUnreachable(w http.ResponseWriter, c Cluster, err error) {
	writeStatus(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable,
		fmt.Sprintf("context %s: no answer: %v", c.Name, err))
}

// writeStatus writes a Status as the API server does: kubectl prints
// "Error from server (REASON): MESSAGE".
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	writeStatusObject(w, metav1.Status{Code: int32(code), Reason: reason, Message: message})
}

func writeStatusObject(w http.ResponseWriter, st metav1.Status) {
	serve.WriteStatus(w, &apierrors.StatusError{ErrStatus: st})
}
