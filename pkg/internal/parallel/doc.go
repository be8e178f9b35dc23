// Package parallel splits work over the machine's cores: the revisions of a
// state read from the history (pkg/history) and the rows of a get's Table
// (pkg/output) are one core's work otherwise. It is a package of its own so
// that both split it the same way, with the same threshold logic and error
// handling. It lives under pkg/ so that no package of pkg/ imports
// internal/.
package parallel
