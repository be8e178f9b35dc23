// Package multicluster tests the commands that read several kubeconfig
// contexts (--context a,b, --all-contexts) against a fleet of real
// clusters: three kube-apiservers on one etcd (controlplane.StartFleet),
// each with its own certificates, tokens and data. It is the only test
// package that starts several API servers.
package multicluster
