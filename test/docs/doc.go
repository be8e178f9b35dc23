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
//     sessions run in order in one working directory. The namespace and
//     the CRDs the page installed are deleted after it.
//   - A command ending in `&` runs in the background, and the next command
//     starts once it has printed its first line (or as many as an
//     `<!-- doc-test: await N -->` comment before the block says): those
//     lines are its output shown after it (`await 0` starts it and goes on:
//     for a command that prints nothing until the next ones change
//     something, and only where a later command awaits what it does, as
//     `kubectl wait --for=create` does). `$ wait` waits for every
//     background command and shows the rest of their output, in the order
//     they started; `$ kill %N` sends SIGTERM to the Nth.
//   - Outputs are compared as printed, but for runs of spaces, which count
//     as one (a table's alignment follows its widest cell), and for the
//     values an `<!-- doc-test: vary V V... -->` comment before the block
//     names: each V the block shows (a resourceVersion, an age, a port, a
//     time, a UID, a duration, a hash, a directory, a size such as 41.3Ki)
//     stands for any value of its kind, told by how V looks; a number,
//     UID, hash or path shown twice in a block stands for one value (the
//     --- resourceVersion of a diff is the one the watch printed before).
//     A number the comment does not name is compared exactly (404 is not
//     405), and a value named that the block does not show is an error.
//     The comment is invisible where the page is rendered: a reader sees
//     what a run printed.
//   - A line `...` stands for any number of lines only in a block after an
//     `<!-- doc-test: ellipsis -->` comment; elsewhere it is an error.
//   - A command's exit code is checked: it fails exactly where the page
//     shows kubectl's error (`error: ...`, `Error from server ...`); a page
//     that shows another exit code (`diff`'s 1) prints it:
//     `$ kubectl reflect diff ...; echo "exit $?"`.
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
// differ with what the commands printed (the values marked to vary then
// need marking again). Files: markdown_test.go reads a page and its
// directives, normalize_test.go compares an output with what the page
// shows, session_test.go runs the commands, docs_test.go the pages,
// figures_test.go checks the figures they quote.
//
// The runner is hand-written rather than rogpeppe/go-internal's testscript:
// the source is Markdown a reader sees, outputs are normalized and merged,
// and a background command must be awaited until it has printed, none of
// which testscript's txtar scripts express.
package docs
