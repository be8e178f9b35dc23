// Package docs runs the examples of README.md and docs/*.md against a real
// control plane, so that the documentation cannot rot: every command shown
// is run and its output compared with the one the page shows.
//
// The pages are the test's input, written for readers; a few rules make
// them executable:
//
//   - A fenced block tagged `console` is a session: lines starting with
//     `$ ` are commands (a trailing `\` continues one), the lines after a
//     command are its output, stdout and stderr merged as a terminal shows
//     them. Each page runs in a fresh namespace `demo`, the current one of
//     its kubeconfig, with kubectl and kubectl-reflect on PATH; its
//     sessions run in order in one working directory.
//   - A command ending in `&` runs in the background, and the next command
//     starts once it has printed its first line (or as many as an
//     `<!-- doc-test: await N -->` comment before the block says): those
//     lines are its output shown after it (`await 0` starts it and goes on:
//     for a command that prints nothing until the next ones change
//     something, and only where a later command awaits what it does, as
//     `kubectl wait --for=create` does). `$ wait` waits for every
//     background command and shows the rest of their output, in the order
//     they started; `$ kill %N` sends SIGTERM to the Nth.
//   - Outputs are compared after normalizing what changes from run to run:
//     ages and durations, times, resourceVersions and other numbers of three
//     digits or more, hashes and paths; runs of spaces count as one (a
//     table's alignment follows its widest cell). A line `...` stands for
//     any number of lines. A command's exit code is checked too: it fails
//     exactly where the page shows kubectl's error (`error: ...`, `Error
//     from server ...`); a page that shows another exit code (`diff`'s 1)
//     prints it: `$ kubectl reflect diff ...; echo "exit $?"`.
//   - `<!-- doc-test: file NAME -->` before a block writes the block to NAME
//     in the working directory (a manifest the next commands apply);
//     `<!-- doc-test: skip REASON -->` before a block does not run it (it
//     needs the internet, or is a contributor's command); a `sh` or `bash`
//     block must carry one. A `text` block whose lines start with
//     `kubectl reflect` is a synopsis: each names a command that exists and
//     flags it has.
//   - A page may ask for more than the one control plane, in a line of its
//     own: `<!-- doc-test-page: fleet NAME,NAME... -->` runs it against
//     several clusters, a context each; `<!-- doc-test-page: postgres
//     DB,DB... -->` makes PostgreSQL databases (test/postgres) that its
//     commands reach through libpq's environment (postgres:///DB).
//
// `go test ./test/docs -update` rewrites the outputs of the sessions that
// differ with what the commands printed.
//
// The runner is hand-written rather than rogpeppe/go-internal's testscript:
// the source is Markdown a reader sees, outputs are normalized and merged,
// and a background command must be awaited until it has printed, none of
// which testscript's txtar scripts express.
package docs
