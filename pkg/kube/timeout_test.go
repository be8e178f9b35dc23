package kube

import (
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestNewRESTClientIgnoresTimeout: rest.Config.Timeout (--request-timeout)
// would become the http.Client's timeout and cut every watch at that age;
// the REST client has none, and the caller's config is left as it was.
func TestNewRESTClientIgnoresTimeout(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", Timeout: 2 * time.Second}
	rc, err := NewRESTClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := rc.(*rest.RESTClient)
	if !ok {
		t.Fatalf("NewRESTClient returned a %T", rc)
	}
	if c.Client != nil && c.Client.Timeout != 0 {
		t.Errorf("http.Client.Timeout = %v, want none", c.Client.Timeout)
	}
	if cfg.Timeout != 2*time.Second {
		t.Errorf("the caller's config changed: Timeout = %v", cfg.Timeout)
	}
}
