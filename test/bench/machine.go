//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// machine describes where and how the benchmark ran.
type machine struct {
	cpus       int
	cpuModel   string
	memory     string // MemTotal of /proc/meminfo
	goVersion  string
	kubectl    string // kubectl version --client
	reflect    string // kubectl-reflect version
	kubeServer string // the API server's /version
	started    time.Time
	command    string   // the command that reproduces the run
	commit     string   // the checkout's commit (git's short hash)
	dirty      []string // the paths that differ from it (git status), BENCHMARKS.md aside
	loadStart  string   // /proc/loadavg's load averages before the measurements
	loadEnd    string   // and after them
}

func machineInfo(ctx context.Context, e *env) (machine, error) {
	m := machine{cpus: runtime.NumCPU(), cpuModel: cpuModel(), memory: memTotal(), goVersion: runtime.Version(),
		kubectl: "n/a", loadStart: loadAverage(), started: time.Now().UTC(), command: e.cfg.command}
	var err error
	if m.reflect, err = firstLine(ctx, e.tools.reflect, "version"); err != nil {
		return m, err
	}
	if err := m.readCheckout(ctx, e.cfg); err != nil {
		return m, err
	}
	if e.hasKubectl() {
		if m.kubectl, err = firstLine(ctx, e.tools.kubectl, "version", "--client"); err != nil {
			return m, err
		}
		m.kubectl = strings.TrimPrefix(m.kubectl, "Client Version: ")
	}
	v, err := e.clients.cs.Discovery().ServerVersion()
	if err != nil {
		return m, fmt.Errorf("server version: %w", err)
	}
	m.kubeServer = v.GitVersion
	return m, nil
}

// write writes the machine section of the report.
func (m machine) write(b *strings.Builder, cfg config) {
	b.WriteString("\n## Machine and run\n\n")
	fmt.Fprintf(b, "- date: %s\n", m.started.Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(b, "- command: `%s` (after `make build`; the control-plane binaries are built once and cached)\n", m.command)
	tree := "a clean tree"
	if len(m.dirty) > 0 {
		tree = fmt.Sprintf("**a tree that differs from it** (%s)", strings.Join(m.dirty, ", "))
	}
	fmt.Fprintf(b, "- commit: %s, %s; the binary measured is built from it\n", m.commit, tree)
	fmt.Fprintf(b, "- machine: %d CPUs (%s), %s of memory, %s/%s\n", m.cpus, m.cpuModel, m.memory, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(b, "- Go: %s; Kubernetes: %s (etcd, kube-apiserver on the same machine); kubectl: %s; kubectl-reflect: %s\n",
		m.goVersion, m.kubeServer, m.kubectl, m.reflect)
	fmt.Fprintf(b, "- load average (1, 5, 15 min) at the start of the measurements: %s; at the end: %s. "+
		"Other work on the machine slows the wall-clock figures and widens their spread; the ratios are measured side by side, in turns.\n",
		m.loadStart, m.loadEnd)
	if cfg.quick {
		b.WriteString("- **smoke run (-quick)**: fewer objects and events than the published figures; not for comparison.\n")
	}
	if cfg.partial != "" {
		fmt.Fprintf(b, "- **partial run (-only %s)**: the other parts did not run; BENCHMARKS.md is written whole by a full run.\n", cfg.partial)
	}
	if cfg.note != "" {
		fmt.Fprintf(b, "- note: %s\n", cfg.note)
	}
	fmt.Fprintf(b, "- workload: %d ConfigMaps of %d B of data in one namespace; %d live events; each figure the median of %d runs\n",
		cfg.objects, cfg.size, cfg.events, cfg.repeat)
}

func firstLine(ctx context.Context, path string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", path, strings.Join(args, " "), err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line, nil
}

// readCheckout stamps m with the checkout's commit and what differs from
// it. A published page is of one commit: publishing fails when the binary
// was built from another one or the tree differs from it.
func (m *machine) readCheckout(ctx context.Context, cfg config) error {
	head, err := firstLine(ctx, "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return err
	}
	m.commit = head
	out, err := exec.CommandContext(ctx, "git", "status", "--porcelain").Output()
	if err != nil {
		return fmt.Errorf("git status: %w", err)
	}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if path := strings.TrimSpace(line[min(3, len(line)):]); path != "" && path != "BENCHMARKS.md" {
			m.dirty = append(m.dirty, path)
		}
	}
	switch {
	case staleBinary(m.reflect, head):
		return fmt.Errorf("%s is %q, built from another commit than the checkout's %s: run `make build` (make bench does)", cfg.bin, m.reflect, head)
	case cfg.publish != "" && len(m.dirty) > 0:
		return fmt.Errorf("-publish: the tree differs from commit %s (%s): commit first, so that the page names what it measured", head, strings.Join(m.dirty, ", "))
	}
	return nil
}

// staleBinary reports whether version (kubectl-reflect version's line,
// "... (commit 6c79f77, built ...)") names a commit other than head
// (git's short hash; the two may be of different lengths).
func staleBinary(version, head string) bool {
	_, rest, ok := strings.Cut(version, "(commit ")
	commit, _, _ := strings.Cut(rest, ",")
	if !ok || commit == "" || head == "" {
		return false
	}
	return !strings.HasPrefix(commit, head) && !strings.HasPrefix(head, commit)
}

// loadAverage is the 1, 5 and 15-minute load averages: other work on the
// machine slows the wall-clock measurements down.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], ", ")
}

func cpuModel() string { return procField("/proc/cpuinfo", "model name") }

// memTotal is the machine's memory, in GiB.
func memTotal() string {
	v := procField("/proc/meminfo", "MemTotal")
	var kib int64
	if _, err := fmt.Sscanf(v, "%d kB", &kib); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f GiB", float64(kib)/(1<<20))
}

// procField is the value of the first "key: value" line of a /proc file
// whose key is key.
func procField(path, key string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// reproduce is the command that runs the benchmark again as args asked:
// `make bench` with the flags in BENCHFLAGS. Where the report is written
// (-publish, -out) and -note change no figure and are left out.
func reproduce(args []string) string {
	var kept []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		switch name {
		case "publish", "out", "note":
			if !hasValue {
				i++ // the value is the next argument
			}
			continue
		}
		kept = append(kept, shellQuote(args[i]))
	}
	if len(kept) == 0 {
		return "make bench"
	}
	return "make bench BENCHFLAGS='" + strings.ReplaceAll(strings.Join(kept, " "), "'", `'\''`) + "'"
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=.,/:", r))
	}) < 0 {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s) + `"`
}
