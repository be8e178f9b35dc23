package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Info is what a daemon publishes of itself in <identity>.json.
type Info struct {
	PID int `json:"pid"`
	// Server is the https URL it listens at.
	Server string `json:"server"`
	// Resources are the group/version/resource it caches, each as
	// "resource.version.group" (the group "" for the core group).
	Resources []string `json:"resources"`
	// Kinds are the resources as the daemon's user named them, for people.
	Kinds []string `json:"kinds"`
	// OnDemand says that the daemon adds, at a client's first request, any
	// resource the API server lists and watches (its discovery lists them
	// all); Resources and Kinds are what it caches now.
	OnDemand bool      `json:"onDemand,omitempty"`
	Started  time.Time `json:"started"`
	// History is the file it records its kinds' changes to (serve
	// --record), "" when it records none.
	History string `json:"history,omitempty"`
	// Recorded are the resources it records now, as Kinds names them;
	// RecordsAll says that it records every kind the user may list and
	// watch (serve --record with no KIND), Refused those of them the API
	// server refused it (403), which it does not record.
	Recorded   []string `json:"recorded,omitempty"`
	RecordsAll bool     `json:"recordsAll,omitempty"`
	Refused    []string `json:"refused,omitempty"`
}

// Files are the paths of one identity's daemon in Dir.
type Files struct {
	Kubeconfig, Lock, Info string
	// Socket is the unix socket the daemon also listens at (Listen), the
	// same TLS server as its kubeconfig's address.
	Socket string
}

// FilesOf returns the paths of the daemon of identity id in dir.
func FilesOf(dir, id string) Files {
	p := filepath.Join(dir, id)
	return Files{Kubeconfig: p + ".kubeconfig", Lock: p + ".lock", Info: p + ".json", Socket: p + ".sock"}
}

// Dir is where daemons write their files: under $XDG_RUNTIME_DIR when set
// (a per-user tmpfs), else the user's cache directory, in a directory only
// the user may enter. It is made if missing.
func Dir() (string, error) {
	dir, err := dirPath()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("making %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil { // made earlier with other modes
		return "", fmt.Errorf("making %s private: %w", dir, err)
	}
	return dir, nil
}

// dirPath is Dir's path, which may not exist.
func dirPath() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		var err error
		if base, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("finding a directory for the daemon's files: %w", err)
		}
	}
	return filepath.Join(base, "kubectl-reflect", "serve"), nil
}

// ErrRunning is wrapped by Lock's error when a daemon of the identity runs.
var ErrRunning = errors.New("a daemon already serves this identity")

// Lock is a held <identity>.lock: while it is held no other daemon of the
// identity starts. The kernel releases it when the process ends, however
// it ends, so the files of a daemon that was killed are found stale (their
// lock free) and replaced by the next one.
//
// The lock is github.com/gofrs/flock's: flock(2) where there is one,
// LockFileEx on Windows.
type Lock struct {
	Files
	fl *flock.Flock
}

// Acquire takes the lock of identity id in dir without waiting. When a
// daemon holds it, the error wraps ErrRunning and names that daemon.
func Acquire(dir, id string) (*Lock, error) {
	files := FilesOf(dir, id)
	fl := flock.New(files.Lock, flock.SetFlag(os.O_RDWR|os.O_CREATE), flock.SetPermissions(0o600))
	locked, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", files.Lock, err)
	}
	if !locked {
		return nil, running(files)
	}
	// Whatever is left is a dead daemon's: replaced, not trusted.
	_ = os.Remove(files.Info)
	_ = os.Remove(files.Socket)
	_ = os.Remove(files.Kubeconfig)
	return &Lock{Files: files, fl: fl}, nil
}

// running is the error that names the daemon holding files' lock.
func running(files Files) error {
	info, err := ReadInfo(files)
	if err != nil {
		return fmt.Errorf("%w (it is starting; lock %s)", ErrRunning, files.Lock)
	}
	return fmt.Errorf("%w: pid %d at %s, caching %s since %s; stop it with \"kubectl reflect serve stop\"",
		ErrRunning, info.PID, info.Server, strings.Join(info.Kinds, ", "), info.Started.Format(time.RFC3339))
}

// Publish writes the daemon's kubeconfig, then its Info: a client that
// reads the Info finds the kubeconfig it names.
func (l *Lock) Publish(kubeconfig []byte, info Info) error {
	if err := WritePrivate(l.Kubeconfig, kubeconfig); err != nil {
		return err
	}
	return l.PublishInfo(info)
}

// PublishInfo writes the daemon's Info again, once Publish wrote it: what
// it caches changed.
func (l *Lock) PublishInfo(info Info) error {
	b, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", l.Info, err)
	}
	return WritePrivate(l.Info, b)
}

// Release removes the published files and frees the lock. The lock file
// stays: removing it would let two daemons lock two different files.
func (l *Lock) Release() {
	_ = os.Remove(l.Info)
	_ = os.Remove(l.Socket)
	_ = os.Remove(l.Kubeconfig)
	_ = l.fl.Close() // frees the lock
}

// Held says whether a daemon holds the lock of files, by trying to take
// it shared for a moment.
func Held(files Files) bool {
	fl := flock.New(files.Lock, flock.SetFlag(os.O_RDONLY)) // no lock file: none held
	free, err := fl.TryRLock()
	_ = fl.Close()
	return err == nil && !free
}

// WaitFreed waits until the lock of files is free: the daemon that held
// it has exited (the system frees the lock of a process that ends) or
// released it. It cannot be cancelled: a caller that stops waiting leaves
// it to the process's end.
func WaitFreed(files Files) error {
	fl := flock.New(files.Lock, flock.SetFlag(os.O_RDONLY))
	if err := fl.RLock(); err != nil {
		return fmt.Errorf("locking %s shared: %w", files.Lock, err)
	}
	return fl.Close()
}

// ReadInfo reads the Info in files.
func ReadInfo(files Files) (Info, error) {
	var info Info
	b, err := os.ReadFile(files.Info)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return info, fmt.Errorf("reading %s: %w", files.Info, err)
	}
	return info, nil
}

// WritePrivate writes content to path, mode 0600, in one step: a reader
// never sees half of it.
func WritePrivate(path string, content []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // after the rename, removes nothing
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// ListenSocket listens at the lock's unix socket, mode 0600: a socket file
// left there is a dead daemon's (the lock is held), replaced.
func (l *Lock) ListenSocket() (net.Listener, error) {
	_ = os.Remove(l.Socket)
	ln, err := net.Listen("unix", l.Socket)
	if err != nil {
		return nil, fmt.Errorf("listening at %s: %w", l.Socket, err)
	}
	if err := os.Chmod(l.Socket, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("making %s private: %w", l.Socket, err)
	}
	return ln, nil
}
