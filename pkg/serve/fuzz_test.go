package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// FuzzHandler: whatever a client asks (path, query, Accept), the daemon
// answers without panicking, and in the API server's shape: an error is a
// Status whose code is the response's, JSON is valid JSON (one value per
// line for a watch). Its seeds run in every `go test`; `make fuzz` explores
// from them.
func FuzzHandler(f *testing.F) {
	table := "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
	meta := "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"
	for _, s := range [][3]string{
		{"/api/v1/namespaces/a/configmaps", "", "application/json"},
		{"/api/v1/configmaps", "labelSelector=app%3Dweb&limit=1", table},
		{"/api/v1/configmaps", "fieldSelector=metadata.name%3Dx,metadata.namespace!%3Db&limit=1&continue=x", meta},
		{"/api/v1/configmaps", "fieldSelector=data.k%3D5&resourceVersion=5&resourceVersionMatch=NotOlderThan", ""},
		{"/api/v1/configmaps", "resourceVersion=0&resourceVersionMatch=Exact", "application/yaml"},
		{"/api/v1/namespaces/a/configmaps/x", "", "application/vnd.kubernetes.protobuf"},
		{"/api/v1/watch/namespaces/a/configmaps", "resourceVersion=5", ""},
		{"/api/v1/configmaps", "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", table},
		{"/api/v1/configmaps", "watch=1&resourceVersion=1", ""},
		{"/api/v1/configmaps", "watch=1&timeoutSeconds=0", meta},
		{"/apis", "", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"},
		{"/api/v1", "", ""}, {"/version", "", ""}, {"/debug/status", "", ""}, {"/openapi/v3", "", ""},
		{"/api/v1/namespaces/a/configmaps/x/status", "", ""}, {"/apis/apps/v1/deployments", "", ""}, {"//api//v1/", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	fx := newFixture(f, 16, cm(f, "a", "x", 5, "app=web"), cm(f, "b", "y", 6))
	f.Fuzz(func(t *testing.T, path, query, accept string) {
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond) // ends watches
		defer cancel()
		req := (&http.Request{
			Method: http.MethodGet, URL: &url.URL{Path: path, RawQuery: query},
			Header: http.Header{"Accept": {accept}}, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		}).WithContext(ctx)
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)
		checkAnswer(t, rec)
	})
}

// checkAnswer checks that an answer has the API server's shape.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder) {
	body, ctype := rec.Body.Bytes(), rec.Header().Get("Content-Type")
	if rec.Code < 200 || rec.Code > 599 {
		t.Fatalf("status %d", rec.Code)
	}
	if !strings.HasPrefix(ctype, "application/json") {
		return // text (healthz), YAML, or http.NotFound's
	}
	if rec.Code >= 300 {
		if st := gjson.ParseBytes(body); st.Get("kind").Str != "Status" || st.Get("code").Int() != int64(rec.Code) {
			t.Fatalf("%d answered with %s", rec.Code, body)
		}
	}
	if json.Valid(body) || len(bytes.TrimSpace(body)) == 0 { // a watch may end before its first event
		return
	}
	for line := range bytes.SplitSeq(bytes.TrimSpace(body), []byte("\n")) { // a watch
		if !json.Valid(line) {
			t.Fatalf("answer %.300q is not JSON, nor JSON lines", body)
		}
	}
}
