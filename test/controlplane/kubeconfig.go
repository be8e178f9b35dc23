package controlplane

import (
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigContext is the name of the cluster and context in the written
// kubeconfig files.
const kubeconfigContext = "kubectl-reflect-controlplane"

// writeKubeconfig writes a kubeconfig for server that authenticates as user
// with a bearer token and trusts caPEM.
func writeKubeconfig(path, server string, caPEM []byte, user, token string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[kubeconfigContext] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[kubeconfigContext] = &clientcmdapi.Context{Cluster: kubeconfigContext, AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = kubeconfigContext
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	return nil
}

// restConfig is a client configuration for server as the holder of token.
func restConfig(server string, caPEM []byte, token string) *rest.Config {
	return &rest.Config{
		Host:            server,
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAData: append([]byte(nil), caPEM...)},
	}
}
