package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// errPortInUse marks a component that could not bind its port; Start retries
// with new ports.
var errPortInUse = errors.New("port already in use")

// waitReady polls check until it returns nil. It fails early when p exits,
// and after timeout or when ctx ends; the error carries the tail of p's log.
func waitReady(ctx context.Context, p *process, timeout time.Duration, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		reqCtx, cancelReq := context.WithTimeout(ctx, 2*time.Second)
		last = check(reqCtx)
		cancelReq()
		if last == nil {
			return nil
		}
		select {
		case <-p.done:
			return exitedError(p)
		case <-ctx.Done():
			if p.exited() {
				return exitedError(p)
			}
			return fmt.Errorf("%s not ready: %w (last check: %v)\n%s", p.name, ctx.Err(), last, p.logTail())
		case <-tick.C:
		}
	}
}

func exitedError(p *process) error {
	err := p.exitError()
	if strings.Contains(tailFile(p.logPath, 40, 8<<10), "address already in use") {
		return fmt.Errorf("%w: %w", errPortInUse, err)
	}
	return err
}

// httpCheck returns a check that GETs url (with a bearer token, if set) and
// wants a 200 whose body contains want.
func httpCheck(client *http.Client, url, token, want string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
		}
		if !strings.Contains(string(body), want) {
			return fmt.Errorf("GET %s: body %q lacks %q", url, body, want)
		}
		return nil
	}
}
