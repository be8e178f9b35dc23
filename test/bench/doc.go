// Command bench measures kubectl-reflect side by side with kubectl, its
// baseline, in one run on a real local control plane (see test/controlplane),
// and prints the ratios as a Markdown table:
//
//   - time to the last initial event of `watch cm -o json` (streaming list and
//     paged LIST) against `kubectl get cm -o json`, and `-o name` against
//     `kubectl get cm -o name` for reference;
//   - CPU time per live event of `watch --watch-only -o json` against
//     `kubectl get -w --watch-only --output-watch-events -o json`;
//   - peak RSS after the initial list against `kubectl get cm -o json`.
//
// It measures; it checks nothing (the tests do that). Run it with
// `make bench` (BENCHFLAGS=-quick for a smoke run) or `go run ./test/bench`
// from the repository root after `make build`. It needs Linux: it reads
// /proc.
package main
