package daemon

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// credentials are what a serving cache proves itself and checks its
// clients with: a self-signed certificate for 127.0.0.1 and a bearer token.
type credentials struct {
	cert    tls.Certificate
	certPEM []byte
	token   string
}

// newCredentials makes an ECDSA P-256 key, a certificate for 127.0.0.1
// signed by itself (the kubeconfig trusts it as its own CA), and a token of
// 32 random bytes.
func newCredentials() (*credentials, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("making a key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("making a serial number: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "kubectl-reflect serve"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.AddDate(1, 0, 0),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("making a certificate: %w", err)
	}
	token := make([]byte, 32)
	if _, err := rand.Read(token); err != nil {
		return nil, fmt.Errorf("making a token: %w", err)
	}
	return &credentials{
		cert:    tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		token:   base64.RawURLEncoding.EncodeToString(token),
	}, nil
}

// server is the daemon's HTTPS server of h (authenticated by the
// caller's handler), whose requests' context is ctx: ending it ends the
// watches.
func (c *credentials) server(ctx context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		TLSConfig:         c.tlsConfig(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          discardLog(),
	}
}

func (c *credentials) tlsConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{c.cert}, MinVersion: tls.VersionTLS12}
}

// kubeconfigFor is a kubeconfig for the cache at server, whose
// context's namespace is namespace.
func kubeconfigFor(server, namespace string, cred *credentials) ([]byte, error) {
	const name = "kubectl-reflect-serve"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: cred.certPEM}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: cred.token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: namespace}
	cfg.CurrentContext = name
	content, err := clientcmd.Write(*cfg)
	if err != nil {
		return nil, fmt.Errorf("encoding the kubeconfig: %w", err)
	}
	return content, nil
}

// discardLog silences net/http's own log (a client's TLS handshake that
// failed, a connection reset), which would interleave with our output.
func discardLog() *log.Logger { return log.New(io.Discard, "", 0) }
