// Package cmd wires command-line flags to kubectl-reflect's packages: one
// cobra command per verb, each with an Options struct whose Complete,
// Validate and Run do what their names say. Commands hold no logic that
// pkg/listwatch, pkg/store, pkg/reflector, pkg/kube or pkg/output should own:
// their reflectors come from a pkg/reflector Set, their exact changes from
// a pkg/store Tracker.
//
// Files: root.go (the root command, error printing), exit.go (exit codes,
// and when a command that ended must not exit 0), target.go (what a command
// reads: kinds, names, namespace, selectors, and a lease on one reflector
// per kind and namespace; target_files.go: the objects of manifests, -f and
// -k, each in its namespace; target_daemon.go: the daemon of the same
// identity, whose discovery resolves them and which serves them, adding
// kinds on demand), retry.go (how long each command's reflectors retry what), gc.go (the GC target of a get or watch that holds whole objects, and of run-controller),
// printflags.go (the print flags of a stream, `watch` and `get -w` alike),
// watch*.go and waiting.go (`watch`), report.go (the reporter of errors,
// warnings and list progress, and the reflector hooks that feed it),
// get*.go (`get`: get_run.go reads, get_print.go prints with kubectl's
// printers; get_watch.go runs `watch` for `get -w`; get_raw.go is --raw;
// get_fetch.go reads named objects with a GET each where a list is
// refused, as kubectl get reads them), errmsg.go (errors in kubectl get's words), serve.go
// (`serve`: reflectors of every namespace behind pkg/serve's handler, one
// per identity through pkg/daemon's lock; serve_ondemand.go: the kinds it
// adds on demand and the Info it keeps true; serve_socket.go: its unix
// socket), serve_files.go (its certificate,
// token and kubeconfig), serve_idle.go (--idle-exit), serve_control.go
// (`serve status|stop`), serve_metrics.go (its /metrics and the reflector
// hooks that count), serve_controllers.go (--controllers: run-controller's
// built-ins on the daemon's reflector Set, /debug/controllers, /readyz),
// runcontroller*.go (`run-controller`: flags, the run with its signals,
// metrics server and leader election, the --list table), reconcilelog.go
// (its line per reconcile), builtins.go (the registry of built-in
// controllers), crd.go (`crd print|install`), completion*.go, version.go.
//
// It is internal because its only user is cmd/kubectl-reflect.
package cmd
