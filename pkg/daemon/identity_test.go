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
