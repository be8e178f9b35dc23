// Package krew tests the plugin's distribution the way a user installs it:
// `make dist` and `make krew-manifest` build a release archive and its krew
// manifest, krew (sigs.k8s.io/krew, pinned in tools/go.mod and built once
// into the user cache dir) installs them offline into a temporary
// KREW_ROOT, and kubectl runs the plugin through its plugin discovery.
//
// The tests build binaries and run kubectl, so they are skipped under
// -short; without kubectl on PATH they are skipped with a message. They
// know nothing of the plugin's packages: only the Makefile, the binary and
// its output.
package krew
