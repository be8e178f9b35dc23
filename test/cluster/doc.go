// Package cluster tests the history on a real cluster's shape: the test
// harness's control plane with kube-scheduler, kube-controller-manager's
// Deployment and ReplicaSet controllers and kwok's fake nodes (which play
// the kubelets: nodes Ready, Leases renewed, pods Running), Deployments
// rolling while a recording daemon is killed and started again
// (outage_test.go), and what the default record of the idle cluster grows
// by an hour (growth_test.go, TestIdleGrowth: five minutes). Its tests
// share one such control plane (TestMain), each in a namespace of its own.
package cluster
