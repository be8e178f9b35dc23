package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
)

// etcdArgs are etcd's flags: a single member on loopback. --unsafe-no-fsync
// makes writes fast; the data is thrown away anyway.
func (c *ControlPlane) etcdArgs() []string {
	peer := fmt.Sprintf("http://127.0.0.1:%d", c.etcdPeerPort)
	args := []string{
		"--name=controlplane",
		"--data-dir=" + filepath.Join(c.dir, "etcd"),
		"--listen-client-urls=" + c.EtcdURL(),
		"--advertise-client-urls=" + c.EtcdURL(),
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=controlplane=" + peer,
		"--unsafe-no-fsync",
	}
	return append(args, c.opts.ExtraEtcdFlags...)
}

func (c *ControlPlane) startEtcd(ctx context.Context) error {
	p, err := c.startProcess("etcd", c.bins.Etcd, c.etcdArgs(), nil)
	if err != nil {
		return err
	}
	c.etcd = p
	check := httpCheck(http.DefaultClient, c.EtcdURL()+"/health", "", `"health":"true"`)
	return waitReady(ctx, p, c.opts.ReadyTimeout, check)
}

// EtcdURL is etcd's client URL (plain HTTP on loopback).
func (c *ControlPlane) EtcdURL() string {
	if c.opts.SharedEtcd != "" {
		return c.opts.SharedEtcd
	}
	return fmt.Sprintf("http://127.0.0.1:%d", c.etcdClientPort)
}

// CompactEtcd compacts etcd's history up to its current revision and
// reclaims the space (physical compaction), through etcd's gRPC gateway.
// Afterwards etcd cannot serve a watch or a read at an older revision; the
// API server's watch cache still can until RestartAPIServer.
func (c *ControlPlane) CompactEtcd(ctx context.Context) error {
	rev, err := c.EtcdRevision(ctx)
	if err != nil {
		return err
	}
	body := fmt.Sprintf(`{"revision":"%d","physical":true}`, rev)
	if err := c.etcdPost(ctx, "/v3/kv/compaction", body, nil); err != nil {
		if strings.Contains(err.Error(), "required revision has been compacted") {
			return nil // the API server's compactor got there first
		}
		return fmt.Errorf("compact etcd to revision %d: %w", rev, err)
	}
	return nil
}

// EtcdRevision returns etcd's current revision.
func (c *ControlPlane) EtcdRevision(ctx context.Context) (int64, error) {
	var resp struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	// Any key will do: every response header carries the store's revision.
	if err := c.etcdPost(ctx, "/v3/kv/range", `{"key":"AA==","limit":"1"}`, &resp); err != nil {
		return 0, fmt.Errorf("read etcd revision: %w", err)
	}
	rev, err := strconv.ParseInt(resp.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read etcd revision: bad revision %q: %w", resp.Header.Revision, err)
	}
	return rev, nil
}

// etcdPost POSTs a JSON body to etcd's gRPC gateway and decodes the answer
// into out, if set.
func (c *ControlPlane) etcdPost(ctx context.Context, path, body string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.EtcdURL()+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, bytes.TrimSpace(b))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("POST %s: decode %q: %w", path, b, err)
	}
	return nil
}
