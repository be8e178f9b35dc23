package serve

import (
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

func names(body, path string) string {
	var out []string
	for _, n := range gjson.Get(body, path).Array() {
		out = append(out, n.String())
	}
	return strings.Join(out, " ")
}

// TestDiscovery: the legacy and aggregated documents list the cached
// resources only, with the verbs get, list and watch.
func TestDiscovery(t *testing.T) {
	fx := newFixture(t, 16)
	code, body := fx.get("/api/v1")
	if code != 200 || names(body, "resources.#.name") != "configmaps" || names(body, "resources.0.verbs") != "get list watch" ||
		names(body, "resources.0.shortNames") != "cm" {
		t.Errorf("/api/v1 = %d %s", code, body)
	}
	code, body = fx.get("/api", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json")
	if code != 200 || gjson.Get(body, "kind").Str != "APIGroupDiscoveryList" ||
		names(body, "items.0.versions.0.resources.#.resource") != "configmaps" ||
		gjson.Get(body, "items.0.versions.0.resources.0.scope").Str != "Namespaced" {
		t.Errorf("/api aggregated = %d %s", code, body)
	}
	code, body = fx.get("/api")
	if code != 200 || names(body, "versions") != "v1" {
		t.Errorf("/api = %d %s", code, body)
	}
	code, body = fx.get("/apis", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
	if code != 200 || gjson.Get(body, "items.#").Int() != 0 {
		t.Errorf("/apis aggregated = %d %s", code, body)
	}
	if code, body = fx.get("/version"); code != 200 || gjson.Get(body, "minor").Str != "37" {
		t.Errorf("/version = %d %s", code, body)
	}
	if code, body = fx.get("/debug/status"); code != 200 || gjson.Get(body, "#").Int() != 1 ||
		gjson.Get(body, "0.resource").Str != "configmaps" || gjson.Get(body, "0.objects").Int() != 0 ||
		gjson.Get(body, "0.resourceVersion").Str != "10" || gjson.Get(body, "0.watchers").Int() != 0 {
		t.Errorf("/debug/status = %d %s", code, body)
	}
}

// TestRefused: writes are 405, what is not cached 404, a missing object
// 404 in the API server's words, no token or a wrong one 401.
func TestRefused(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	tests := []struct {
		method, path, auth string
		code               int
		reason, message    string
	}{
		{"POST", "/api/v1/namespaces/a/configmaps", "Bearer secret", 405, "MethodNotAllowed", "read-only cache"},
		{"DELETE", "/api/v1/namespaces/a/configmaps/x", "Bearer secret", 405, "MethodNotAllowed", "read-only cache"},
		{"PATCH", "/api/v1/namespaces/a/configmaps/x", "Bearer secret", 405, "MethodNotAllowed", "read-only cache"},
		{"GET", "/api/v1/namespaces/a/secrets", "Bearer secret", 404, "NotFound", "secrets (v1) is not cached"},
		{"GET", "/apis/apps/v1/deployments", "Bearer secret", 404, "NotFound", "not cached"},
		{"GET", "/api/v1/namespaces/a/configmaps/x/status", "Bearer secret", 404, "NotFound", "configmaps/status is not cached"},
		{"GET", "/api/v1/namespaces/a/configmaps/y", "Bearer secret", 404, "NotFound", `configmaps "y" not found`},
		{"GET", "/api/v1/configmaps", "", 401, "Unauthorized", "Unauthorized"},
		{"GET", "/api/v1/configmaps", "Bearer wrong", 401, "Unauthorized", "Unauthorized"},
		{"GET", "/debug/status", "", 401, "Unauthorized", "Unauthorized"},
		{"GET", "/api/v1/configmaps?fieldSelector=data.other%3D1", "Bearer secret", 400, "BadRequest", `"data.other" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"GET", "/api/v1/configmaps?labelSelector=a%3D%3D%3D", "Bearer secret", 400, "BadRequest", "unable to parse requirement"},
	}
	for _, tt := range tests {
		code, body := fx.do(tt.method, tt.path, "Authorization", tt.auth)
		if code != tt.code || gjson.Get(body, "kind").Str != "Status" || gjson.Get(body, "reason").Str != tt.reason ||
			!strings.Contains(gjson.Get(body, "message").Str, tt.message) || gjson.Get(body, "code").Int() != int64(tt.code) {
			t.Errorf("%s %s (%q) = %d %s; want %d %s %q", tt.method, tt.path, tt.auth, code, body, tt.code, tt.reason, tt.message)
		}
	}
	if code, _ := fx.do("GET", "/readyz"); code != 200 {
		t.Errorf("/readyz without a token = %d, want 200", code)
	}
}

// TestGetAndList: GET of one object and LIST answer the objects as the
// server sent them, in etcd's key order, filtered by namespace and
// selectors, with the snapshot's resourceVersion.
func TestGetAndList(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5, "app=web"), cm(t, "a-b", "y", 6), cm(t, "a", "z", 7, "app=db"))
	code, body := fx.get("/api/v1/namespaces/a/configmaps/x")
	if code != 200 || gjson.Get(body, "metadata.name").Str != "x" || gjson.Get(body, "data.k").Str != "5" {
		t.Errorf("GET = %d %s", code, body)
	}
	tests := []struct{ path, want string }{
		{"/api/v1/configmaps", "y x z"}, // a-b/y < a/x in key order
		{"/api/v1/namespaces/a/configmaps", "x z"},
		{"/api/v1/configmaps?labelSelector=app", "x z"},
		{"/api/v1/configmaps?labelSelector=app%3Dweb", "x"},
		{"/api/v1/configmaps?labelSelector=app!%3Dweb", "y z"},
		{"/api/v1/configmaps?fieldSelector=metadata.name%3Dz", "z"},
		{"/api/v1/configmaps?fieldSelector=metadata.namespace!%3Da", "y"},
		{"/api/v1/namespaces/a-b/configmaps?fieldSelector=metadata.name%3Dx", ""},
		{"/api/v1/configmaps?fieldSelector=data.k%3D7", "z"}, // a selectable field (Resource.SelectableFields)
		{"/api/v1/configmaps?fieldSelector=data.k!%3D7,metadata.namespace%3Da", "x"},
	}
	for _, tt := range tests {
		code, body := fx.get(tt.path)
		if code != 200 || names(body, "items.#.metadata.name") != tt.want || gjson.Get(body, "metadata.resourceVersion").Str != "10" ||
			gjson.Get(body, "kind").Str != "ConfigMapList" {
			t.Errorf("LIST %s = %d %s; want %q at 10", tt.path, code, body, tt.want)
		}
	}
}

// TestTable: kubectl's Accept gets a Table of the server's columns and
// cells, the Age computed now, rows carrying PartialObjectMetadata.
func TestTable(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "x", 5))
	accept := "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
	code, body := fx.get("/api/v1/namespaces/a/configmaps", "Accept", accept)
	if code != 200 || gjson.Get(body, "kind").Str != "Table" || names(body, "columnDefinitions.#.name") != "Name Data Age" ||
		gjson.Get(body, "rows.0.cells").Raw != `["x",1,"60m"]` || gjson.Get(body, "rows.0.object.kind").Str != "PartialObjectMetadata" ||
		gjson.Get(body, "rows.0.object.metadata.namespace").Str != "a" || gjson.Get(body, "rows.0.object.data").Exists() {
		t.Errorf("Table LIST = %d %s", code, body)
	}
	code, body = fx.get("/api/v1/namespaces/a/configmaps/x?includeObject=Object", "Accept", accept)
	if code != 200 || gjson.Get(body, "rows.#").Int() != 1 || gjson.Get(body, "rows.0.object.data.k").Str != "5" {
		t.Errorf("Table GET = %d %s", code, body)
	}
	code, body = fx.get("/api/v1/configmaps", "Accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")
	if code != 200 || gjson.Get(body, "kind").Str != "PartialObjectMetadataList" || gjson.Get(body, "items.0.data").Exists() ||
		gjson.Get(body, "items.0.metadata.name").Str != "x" {
		t.Errorf("metadata LIST = %d %s", code, body)
	}
}

// TestPaging: limit/continue pages through the snapshot of the first page
// whatever changes meanwhile; Exact and NotOlderThan resourceVersions; an
// expired token is 410 Expired with a token to go on inconsistently.
func TestPaging(t *testing.T) {
	fx := newFixture(t, 16, cm(t, "a", "v", 1), cm(t, "a", "w", 2), cm(t, "a", "x", 3), cm(t, "a", "y", 4), cm(t, "a", "z", 5))
	code, body := fx.get("/api/v1/configmaps?limit=2")
	if code != 200 || names(body, "items.#.metadata.name") != "v w" || gjson.Get(body, "metadata.remainingItemCount").Int() != 3 {
		t.Fatalf("page 1 = %d %s", code, body)
	}
	cont := gjson.Get(body, "metadata.continue").Str
	fx.send(1, cm(t, "a", "u", 11)) // ADDED after the first page
	code, body = fx.get("/api/v1/configmaps?limit=2&continue=" + cont)
	if code != 200 || names(body, "items.#.metadata.name") != "x y" || gjson.Get(body, "metadata.resourceVersion").Str != "10" {
		t.Fatalf("page 2 = %d %s", code, body)
	}
	code, body = fx.get("/api/v1/configmaps?limit=2&continue=" + gjson.Get(body, "metadata.continue").Str)
	if code != 200 || names(body, "items.#.metadata.name") != "z" || gjson.Get(body, "metadata.continue").Exists() {
		t.Fatalf("page 3 = %d %s", code, body)
	}
	if code, body = fx.get("/api/v1/configmaps?resourceVersion=10&resourceVersionMatch=Exact"); code != 200 || names(body, "items.#.metadata.name") != "v w x y z" {
		t.Errorf("Exact 10 (a kept snapshot) = %d %s", code, body)
	}
	if code, body = fx.get("/api/v1/configmaps?resourceVersion=11"); code != 200 || names(body, "items.#.metadata.name") != "u v w x y z" {
		t.Errorf("NotOlderThan 11 = %d %s", code, body)
	}
	fx.serverHistoryFrom(10)
	if code, body = fx.get("/api/v1/configmaps?resourceVersion=9&resourceVersionMatch=Exact"); code != 410 || gjson.Get(body, "reason").Str != "Expired" {
		t.Errorf("Exact 9 = %d %s; want 410 Expired", code, body)
	}
	if code, body = fx.get("/api/v1/configmaps?resourceVersion=5&continue=" + cont); code != 422 {
		t.Errorf("continue with a resourceVersion = %d %s; want 422", code, body)
	}
	if code, body = fx.get("/api/v1/configmaps?continue=garbage"); code != 400 {
		t.Errorf("a bad continue = %d %s; want 400", code, body)
	}

	fx.advance(time.Hour) // every snapshot expires
	code, body = fx.get("/api/v1/configmaps?limit=2&continue=" + cont)
	if code != 410 || gjson.Get(body, "reason").Str != "Expired" || !strings.Contains(body, "too old to display a consistent list") {
		t.Fatalf("expired continue = %d %s", code, body)
	}
	code, body = fx.get("/api/v1/configmaps?limit=10&continue=" + gjson.Get(body, "metadata.continue").Str)
	if code != 200 || names(body, "items.#.metadata.name") != "x y z" || gjson.Get(body, "metadata.resourceVersion").Str != "11" {
		t.Errorf("the inconsistent continuation = %d %s; want x y z at 11", code, body)
	}
}

// TestTooLarge: a resourceVersion the cache has not reached is waited for;
// one it does not reach in time is answered as the API server does (504,
// cause ResourceVersionTooLarge; an ERROR event for a watch).
func TestTooLarge(t *testing.T) {
	fx := newFixtureOpts(t, 16, Options{FreshWait: time.Nanosecond}, cm(t, "a", "x", 5))
	code, body := fx.get("/api/v1/configmaps?resourceVersion=99")
	if code != 504 || gjson.Get(body, "details.causes.0.reason").Str != "ResourceVersionTooLarge" {
		t.Errorf("LIST at 99 = %d %s", code, body)
	}
	fx.watch("/api/v1/configmaps?watch=1&resourceVersion=99").expect("ERROR 504 Timeout", "END")

	patient := newFixtureOpts(t, 16, Options{FreshWait: patience}, cm(t, "a", "x", 5))
	type answer struct {
		code int
		body string
		err  error
	}
	listed := make(chan answer, 1)
	go func() {
		code, body, err := patient.request("GET", "/api/v1/configmaps?resourceVersion=11", "Authorization", "Bearer secret")
		listed <- answer{code, body, err}
	}()
	patient.send(watch.WatchAdded, cm(t, "a", "y", 11))
	if a := <-listed; a.err != nil || a.code != 200 || names(a.body, "items.#.metadata.name") != "x y" {
		t.Errorf("LIST at 11 (reached meanwhile) = %d %s %v", a.code, a.body, a.err)
	}
}
