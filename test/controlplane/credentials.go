package controlplane

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// AdminUser is the admin's user name (group system:masters).
const AdminUser = "admin"

// UnprivilegedUser is the user name behind UserKubeconfig: authenticated, in
// no group but system:authenticated, and bound to no role. Bind roles to it to
// test RBAC.
const UnprivilegedUser = "unprivileged"

// credentials are the files kube-apiserver needs and the tokens clients use.
type credentials struct {
	adminToken, userToken string
	caPEM                 []byte // the CA that signed the serving certificate
	tokenFile             string // --token-auth-file
	certFile, keyFile     string // --tls-cert-file, --tls-private-key-file
	saPub, saKey          string // service-account verification and signing keys
}

// writeCredentials creates tokens, a CA and serving certificate for
// 127.0.0.1/localhost, and a service-account RSA key pair under dir.
func writeCredentials(dir string) (credentials, error) {
	var c credentials
	var err error
	if c.adminToken, err = randomToken(); err != nil {
		return c, err
	}
	if c.userToken, err = randomToken(); err != nil {
		return c, err
	}
	c.tokenFile = filepath.Join(dir, "tokens.csv")
	tokens := fmt.Sprintf("%s,%s,%s,\"system:masters\"\n%s,%s,%s\n",
		c.adminToken, AdminUser, AdminUser, c.userToken, UnprivilegedUser, UnprivilegedUser)
	if err := os.WriteFile(c.tokenFile, []byte(tokens), 0o600); err != nil {
		return c, fmt.Errorf("write token file: %w", err)
	}

	c.certFile, c.keyFile = filepath.Join(dir, "apiserver.crt"), filepath.Join(dir, "apiserver.key")
	if c.caPEM, err = writeServingCert(c.certFile, c.keyFile); err != nil {
		return c, err
	}

	c.saPub, c.saKey = filepath.Join(dir, "sa.pub"), filepath.Join(dir, "sa.key")
	if err := writeServiceAccountKey(c.saPub, c.saKey); err != nil {
		return c, err
	}
	return c, nil
}

func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// writeServingCert writes a serving certificate and key for the loopback
// address, signed by a fresh CA, and returns the CA certificate in PEM.
func writeServingCert(certFile, keyFile string) ([]byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubectl-reflect-controlplane-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate serving key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "kube-apiserver"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames: []string{"localhost", "kubernetes", "kubernetes.default",
			"kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("create serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("marshal serving key: %w", err)
	}
	if err := writePEM(certFile, "CERTIFICATE", der); err != nil {
		return nil, err
	}
	if err := writePEM(keyFile, "EC PRIVATE KEY", keyDER); err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), nil
}

// writeServiceAccountKey writes an RSA key pair for signing and verifying
// service-account tokens.
func writeServiceAccountKey(pubFile, keyFile string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return fmt.Errorf("generate service-account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return fmt.Errorf("marshal service-account public key: %w", err)
	}
	if err := writePEM(keyFile, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key)); err != nil {
		return err
	}
	return writePEM(pubFile, "PUBLIC KEY", pub)
}

func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	return nil
}
