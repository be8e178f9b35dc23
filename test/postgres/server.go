package postgres

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrNotInstalled: no PostgreSQL server binaries were found.
var ErrNotInstalled = errors.New("PostgreSQL is not installed (make postgres installs Debian's)")

// Server is a running PostgreSQL server of a test run.
type Server struct {
	dir  string // data directory, and the socket's
	cmd  *exec.Cmd
	done chan struct{} // closed once the server has exited
	log  strings.Builder
}

// Binaries returns the directory of the newest PostgreSQL server binaries
// installed (Debian's /usr/lib/postgresql/N/bin), or ErrNotInstalled.
func Binaries() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { // 9.6 < 15 < 16: by length, then name
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "postgres")); err == nil {
			return dirs[i], nil
		}
	}
	if p, err := exec.LookPath("postgres"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNotInstalled
}

// Start makes a new database cluster in a temporary directory and starts
// its server, returning once it accepts connections.
func Start(ctx context.Context) (*Server, error) {
	bin, err := Binaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "kubectl-reflect-postgres-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, done: make(chan struct{})}
	if err := s.start(ctx, bin); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, bin string) error {
	owner, err := serverUser(s.dir)
	if err != nil {
		return err
	}
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", filepath.Join(s.dir, "data"),
		"-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C")
	initdb.SysProcAttr = owner
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(s.dir, "data"),
		"-k", s.dir, "-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=200")
	s.cmd.SysProcAttr = withDeathSignal(owner)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	ready := make(chan struct{})
	go s.read(stderr, ready)
	select {
	case <-ready:
		return nil
	case <-s.done:
		return fmt.Errorf("postgres exited: %s", s.log.String())
	case <-ctx.Done():
		return ctx.Err()
	}
}

// read keeps the server's log, closes ready once it accepts connections,
// and done once it has exited.
func (s *Server) read(r io.Reader, ready chan struct{}) {
	sc := bufio.NewScanner(r)
	isReady := false
	for sc.Scan() {
		if !isReady {
			s.log.WriteString(sc.Text() + "\n")
		}
		if !isReady && strings.Contains(sc.Text(), "ready to accept connections") {
			isReady = true
			close(ready)
		}
	}
	io.Copy(io.Discard, r) // a line too long for the scanner: the server must not block on its log
	s.cmd.Wait()
	close(s.done)
}

// URL is the URL of database db on the server.
func (s *Server) URL(db string) string {
	return (&url.URL{Scheme: "postgres", User: url.User("postgres"), Path: "/" + db,
		RawQuery: url.Values{"host": {s.dir}, "sslmode": {"disable"}}.Encode()}).String()
}

// Env is the environment in which libpq's clients, pgx and psql among
// them, connect to the server when a URL names no host or user
// (postgres:///DB).
func (s *Server) Env() []string {
	return []string{"PGHOST=" + s.dir, "PGUSER=postgres", "PGSSLMODE=disable"}
}

// CreateDatabase makes an empty database and returns its URL.
func (s *Server) CreateDatabase(ctx context.Context, name string) (string, error) {
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return "", err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("creating database %s: %w", name, err)
	}
	return s.URL(name), nil
}

// Stop stops the server (a fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Signal(interrupt)
		select {
		case <-s.done:
		case <-time.After(30 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	return os.RemoveAll(s.dir)
}
