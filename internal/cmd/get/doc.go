// Package get is `kubectl reflect get`: kubectl get's flags and output,
// byte for byte, read from reflector stores. run.go syncs a reflector per
// kind and takes the stores' snapshots, printed by pkg/output's get
// printers (PrintTables, PrintObjects) with kubectl's errors
// (output.KubectlError); fetch.go reads named objects with a GET each
// where a list is refused, as kubectl get reads them; raw.go is --raw;
// watch.go is -w and --watch-only, which run package watch.
package get
