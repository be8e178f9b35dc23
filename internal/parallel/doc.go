// Package parallel splits work over the machine's cores: a state of many
// objects decoded at a warm restart (pkg/reflector) or read from the
// history (pkg/history) is one core's work otherwise. It is a package of
// its own so that both split it the same way, with the same threshold
// logic and error handling.
package parallel
