package controlplane

import (
	"errors"
	"os/exec"
	"runtime"
	"sync"
)

// spawner starts child processes from one goroutine locked to its OS thread.
//
// On Linux, Pdeathsig fires when the thread that forked the child exits, not
// when the process does. Go may retire a thread whenever a goroutine that
// locked it exits, so a child started from an arbitrary goroutine could be
// killed at a random moment. The spawner's goroutine keeps its thread for the
// control plane's whole life; close ends the goroutine, the runtime then
// terminates the thread, and any child still alive gets SIGKILL — a last line
// of defence after Stop.
type spawner struct {
	reqs    chan spawnRequest
	closeMu sync.Mutex
	closed  bool
}

type spawnRequest struct {
	cmd  *exec.Cmd
	errc chan<- error
}

var errSpawnerClosed = errors.New("control plane is stopped")

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnRequest)}
	go s.loop()
	return s
}

func (s *spawner) loop() {
	runtime.LockOSThread() // never unlocked: the thread exits with this goroutine
	for req := range s.reqs {
		req.errc <- req.cmd.Start()
	}
}

// start runs cmd.Start on the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.closed {
		return errSpawnerClosed
	}
	errc := make(chan error, 1)
	s.reqs <- spawnRequest{cmd: cmd, errc: errc}
	return <-errc
}

// close ends the spawner's goroutine and with it its OS thread. Call it once
// every child has been stopped.
func (s *spawner) close() {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.reqs)
	}
}
