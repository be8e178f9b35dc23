package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"strings"

	"k8s.io/client-go/rest"
)

// identity is what makes two kubeconfigs the same user of the same
// cluster. Secrets (tokens, keys, passwords) are in it only to be hashed.
type identity struct {
	Server        string
	CA            []byte
	ServerName    string
	Token         string
	TokenFile     string
	Cert          []byte
	Username      string
	Password      string
	Exec          any
	AuthProvider  any
	Impersonate   rest.ImpersonationConfig
	TLSSkipVerify bool
}

// Identity is the hex SHA-256 (its first 16 bytes) of cfg's cluster (its
// server URL, normalised as serverOf says, and CA) and user (token, client
// certificate, basic credentials, exec or auth-provider configuration,
// impersonation): two
// configs that reach the same server as the same user have the same
// Identity; it names the files of the daemon serving that user and holds
// no secret in clear.
func Identity(cfg *rest.Config) string {
	id := identity{
		Server:        serverOf(cfg),
		CA:            fileOr(cfg.CAData, cfg.CAFile),
		ServerName:    cfg.ServerName,
		Token:         cfg.BearerToken,
		TokenFile:     cfg.BearerTokenFile,
		Cert:          fileOr(cfg.CertData, cfg.CertFile),
		Username:      cfg.Username,
		Password:      cfg.Password,
		Impersonate:   cfg.Impersonate,
		TLSSkipVerify: cfg.Insecure,
	}
	if e := cfg.ExecProvider; e != nil {
		id.Exec = []any{e.Command, e.Args, e.Env, e.APIVersion}
	}
	if cfg.AuthProvider != nil {
		id.AuthProvider = cfg.AuthProvider
	}
	b, _ := json.Marshal(id) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// fileOr is data, or else the content of the file at path (the path
// itself when it cannot be read).
func fileOr(data []byte, path string) []byte {
	if len(data) > 0 || path == "" {
		return data
	}
	if b, err := os.ReadFile(path); err == nil {
		return b
	}
	return []byte(path)
}

// serverOf is cfg's server URL in one spelling for all those that reach
// the same server: the scheme client-go defaults to when there is none,
// scheme and host in lower case, the scheme's default port written, no
// trailing slash ("HTTPS://Example.COM/" is "https://example.com:443").
func serverOf(cfg *rest.Config) string {
	u, _, err := rest.DefaultServerUrlFor(cfg)
	if err != nil {
		return cfg.Host // client-go cannot reach it either
	}
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"https": "443", "http": "80"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port) + strings.TrimSuffix(u.Path, "/")
}
