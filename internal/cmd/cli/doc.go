// Package cli is the plumbing the commands share, as kubectl's
// k8s.io/kubectl/pkg/cmd/util is theirs: nothing here is a verb.
//
// Target (target.go) is what watch, get and serve read: kinds, names, a
// namespace or all, selectors, or the objects of manifests (files.go,
// through kube.ReadManifests); Resolve resolves them as kubectl does,
// through a daemon of the same identity when one runs (daemon.go), and
// Acquire leases one reflector per kind and namespace from a
// reflector.Set with the retry policy of a one-shot read or a stream
// (retry.go) and the GC target of whole objects (gc.go). Reporter
// (report.go) writes errors, warnings and list progress, and feeds on a
// reflector's hooks. Options and RunE (options.go) are the
// Complete/Validate/Run contract of every command; exit.go has the exit
// codes: ErrInterrupted, Execute's 130, and ExitStatus, an error with a
// code of its own (diff's 1 for "different", printed as nothing by Exit,
// and 2 for an error, WithExitCode). KindOf names a resource as
// pkg/output prints it.
//
// It stays in internal/cmd because each piece is flag wiring or kubectl's
// command-line habits (its flags, its "Required resource not specified"),
// not behaviour a library user would call.
package cli
