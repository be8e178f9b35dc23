// Package history tests `serve --record`, `get --at` and `history` against
// a real control plane (one for the package, shared by its tests): what a
// daemon records, what get printed at a moment compared byte for byte
// with get --at that moment later, revisions and their managers, a
// daemon restarted (SIGTERM, SIGKILL in a burst) that records what it
// missed, and the one-line errors of bad input and bad files.
package history
