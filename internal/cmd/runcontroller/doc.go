// Package runcontroller is `kubectl reflect run-controller NAME[,NAME...]`:
// flags to a manager.Config (pkg/manager starts the built-ins on one
// reflector Set, with leader election, metrics and the stop policy);
// lease.go has the leader-election timing flags, list.go the --list
// table.
package runcontroller
