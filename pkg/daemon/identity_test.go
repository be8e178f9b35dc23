package daemon

import (
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func TestIdentity(t *testing.T) {
	base := func() *rest.Config {
		return &rest.Config{Host: "https://a:6443", BearerToken: "secret-token",
			TLSClientConfig: rest.TLSClientConfig{CAData: []byte("ca")}}
	}
	for _, tt := range []struct {
		name   string
		change func(*rest.Config)
		same   bool
	}{
		{"the same config", func(*rest.Config) {}, true},
		{"a timeout or QPS", func(c *rest.Config) { c.QPS, c.Timeout = 5, 3 }, true},
		{"another server", func(c *rest.Config) { c.Host = "https://b:6443" }, false},
		{"a trailing slash", func(c *rest.Config) { c.Host = "https://a:6443/" }, true},
		{"an upper-case host and scheme", func(c *rest.Config) { c.Host = "HTTPS://A:6443" }, true},
		{"no scheme (client-go's https with a CA)", func(c *rest.Config) { c.Host = "a:6443" }, true},
		{"another port", func(c *rest.Config) { c.Host = "https://a:6444" }, false},
		{"a path", func(c *rest.Config) { c.Host = "https://a:6443/proxy" }, false},
		{"http", func(c *rest.Config) { c.Host = "http://a:6443" }, false},
		{"another CA", func(c *rest.Config) { c.CAData = []byte("other") }, false},
		{"another token", func(c *rest.Config) { c.BearerToken = "other" }, false},
		{"a client certificate", func(c *rest.Config) { c.BearerToken, c.CertData = "", []byte("cert") }, false},
		{"an exec plugin", func(c *rest.Config) {
			c.BearerToken, c.ExecProvider = "", &clientcmdapi.ExecConfig{Command: "aws", Args: []string{"eks"}}
		}, false},
		{"impersonation", func(c *rest.Config) { c.Impersonate.UserName = "bob" }, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.change(c)
			a, b := Identity(base()), Identity(c)
			if (a == b) != tt.same {
				t.Errorf("Identity %s vs %s: same = %v, want %v", a, b, a == b, tt.same)
			}
			if len(b) != 32 || strings.Contains(b, "secret") {
				t.Errorf("Identity %q: want 32 hex digits", b)
			}
		})
	}
}

// TestServerOf: the spellings of one server URL are one.
func TestServerOf(t *testing.T) {
	for _, tt := range []struct{ host, want string }{
		{"https://127.0.0.1:6443", "https://127.0.0.1:6443"},
		{"https://127.0.0.1:6443/", "https://127.0.0.1:6443"},
		{"HTTPS://Example.COM/", "https://example.com:443"},
		{"https://example.com:443", "https://example.com:443"},
		{"https://[::1]:6443/", "https://[::1]:6443"},
		{"https://a/prefix/", "https://a:443/prefix"},
	} {
		if got := serverOf(&rest.Config{Host: tt.host}); got != tt.want {
			t.Errorf("serverOf(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}
