// Package demo tests hack/demo.sh, what `make demo` runs, end to end: the
// script starts its own control plane, so the test needs the control-plane
// binaries (test/controlplane) and is skipped under -short. It checks what a
// user sees in the first minutes (changes that keep coming, a Deployment
// that gets its ReplicaSet) and that Ctrl-C or SIGTERM leaves no process and
// no temporary directory behind. Linux only: it finds the demo's processes
// through /proc.
package demo
