// Package postgres starts a real PostgreSQL server for tests: the history
// store's second engine (pkg/history.Postgres) is tested against the
// server a team would run, not a fake.
//
// The server is Debian's (package postgresql, which `make postgres`
// installs; Binaries finds it under /usr/lib/postgresql). Start runs
// initdb into a temporary directory and the server on a Unix socket in it
// (no TCP port to race for), with trust authentication and without
// fsync; as the user postgres when the tests run as root, which the
// server refuses to run as. Shared is one server per test binary, a
// database per test (Database).
package postgres
