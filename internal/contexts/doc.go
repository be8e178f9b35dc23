// Package contexts runs one verb in several kubeconfig contexts at once
// (--context a,b, --all-contexts). It exists so that watch, get, serve,
// serve status/stop, diff, timeline and history fan out the same way
// instead of each with a copy of its own: which contexts, each context's
// flags, each context's stderr, failures isolated and reported once.
//
//   - names.go: Names, the contexts a command reads (nil for one: the
//     command then runs as it does without the package); Flags, the
//     kubeconfig flags of one context.
//   - prefix.go: Prefixer, whole lines of several writers to one, each
//     after its prefix.
//   - run.go: Set, the contexts with a stderr each, and how a verb runs
//     in them.
//
// The contract of a Set:
//   - Ordering: a Set keeps the order given (the kubeconfig's sorted
//     names for --all-contexts); Each runs in it, Wait returns the errors
//     in it, and a command that merges output merges in it. What contexts
//     write on their stderr at once comes line by line, each line whole,
//     after "context NAME: ".
//   - Failure isolation: under Go a context's error is its own; the others
//     run on and print. Each, for steps that must be whole before anything
//     runs, stops at the first error and names its context.
//   - Cancellation: f is given the caller's ctx and must return when it
//     ends; Go cancels nothing itself, but calls OnAllFailed once every
//     context has failed (a stream with nothing left to show ends).
//   - Reporting: a failure is written once, on the context's stderr
//     (Report; ErrReported when the context wrote it itself), and the
//     command turns "some context failed" into its exit status.
//   - Output: stdout is the command's own: contexts share it (a merged
//     stream), or the command prints what they read, in the Set's order.
//
// It knows nothing of verbs, printers or exit codes; pkg/daemon's merged
// view of several daemons (daemon.RunContexts) is a feature of its own.
package contexts
