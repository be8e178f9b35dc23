package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/history/recording"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/serve"
)

// ErrNoDaemon is the answer of Running when no daemon runs for the
// identity.
var ErrNoDaemon = errors.New("no kubectl reflect serve runs for this cluster and user")

// Running returns the Info of the daemon whose files are files, if it
// runs (holds its lock); ErrNoDaemon otherwise.
func Running(files Files) (Info, error) {
	info, err := ReadInfo(files)
	if err != nil || !Held(files) {
		return Info{}, ErrNoDaemon
	}
	return info, nil
}

// Status is what a running daemon reports of itself.
type Status struct {
	Resources   []serve.ResourceStatus
	Controllers []manager.ControllerStatus
	// History is what a recording daemon says of its history, nil when it
	// does not record.
	History *recording.Status
}

// ReadStatus asks the daemon of files for its /debug/status,
// /debug/controllers and /debug/history, with its kubeconfig, within
// five seconds each.
func ReadStatus(ctx context.Context, files Files) (Status, error) {
	var s Status
	err := readJSON(ctx, files, "/debug/status", &s.Resources)
	if err == nil {
		err = readJSON(ctx, files, "/debug/controllers", &s.Controllers)
	}
	if err == nil {
		err = readJSON(ctx, files, "/debug/history", &s.History)
	}
	return s, err
}

// readJSON reads the daemon's JSON at path into v.
func readJSON(ctx context.Context, files Files, path string, v any) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", files.Kubeconfig)
	if err != nil {
		return err
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cfg.Host+path, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", path, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("reading its %s: %w", path, err)
	}
	return nil
}

// Stop asks the daemon of info and files to stop (stopProcess: SIGTERM on
// Unix) and waits until its lock is free (it has exited), at most
// timeout. ErrNoDaemon if its files are gone; ctx's error if ctx ends
// first.
func Stop(ctx context.Context, files Files, info Info, timeout time.Duration) error {
	if _, err := os.Stat(files.Lock); err != nil {
		return ErrNoDaemon
	}
	if err := stopProcess(info.PID); err != nil {
		return fmt.Errorf("stopping the daemon pid %d: %w", info.PID, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- WaitFreed(files) }() // left to the process's end on a timeout
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("waiting for the daemon pid %d: %w", info.PID, err)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("the daemon pid %d did not exit within %s", info.PID, timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}
