//go:build linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// config is what the flags ask for.
type config struct {
	objects int    // ConfigMaps in the namespace
	size    int    // bytes of data in each
	events  int    // live events for the CPU measurement
	repeat  int    // runs of each timed command; the median is reported
	workers int    // parallel writers when creating and updating
	bin     string // the kubectl-reflect binary
	kubectl string // the kubectl binary; empty: the control plane's
	out     string // also write the report here
	publish string // write the report here as BENCHMARKS.md (make bench)
	quick   bool   // -quick: a smoke run
	partial string // -only's value: a partial run, never published
	note    string // a line for the report's machine section
	command string // the command line that reproduces the run
	// scaleSizes are the namespace sizes of the scale part, ascending.
	scaleSizes []int
	wait       time.Duration // bound on every wait for something that should happen
	only       parts         // the measurements to run
	// The controller part: generators created, spec changes timed, the
	// controllers' concurrency, the controller-runtime module's directory.
	generators, changes, concurrency int
	crcmg                            string
	// memprofile, if set, is where the heap profile of the benchmark goes
	// while kubectl-reflect's store is synced in it (memory part), and with
	// ".relist" appended, once such a store has taken a relist (relist part).
	memprofile string
	// cpuprofile, if set, is where the CPU profile of the benchmark goes
	// while kubectl-reflect's store syncs the first time (memory part).
	cpuprofile string
	// controllerprofile, if set, is where run-controller writes its CPU
	// profile (--profile cpu), with ".ROUND" appended (controller part).
	controllerprofile string
	// serveprofile, if set, is where the daemon of the serve part writes
	// its CPU profile (--profile cpu), from its start to its stop.
	serveprofile string
	realistic    realisticConfig // the realistic part's cluster and windows
}

func main() {
	cfg, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "error: "+err.Error())
		os.Exit(2)
	}
	if cfg.memprofile != "" {
		// Sample one allocation per 4 KiB instead of 512 KiB: the profile is
		// read per object, and an object is about 1.5 KiB.
		runtime.MemProfileRate = 4096
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, cfg, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error: "+err.Error())
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	var cfg config
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.IntVar(&cfg.objects, "objects", 20000, "ConfigMaps to create in the benchmark's namespace")
	fs.IntVar(&cfg.size, "size", 1024, "bytes of data in each ConfigMap")
	fs.IntVar(&cfg.events, "events", 5000, "ConfigMap updates for the CPU-per-event measurement")
	fs.IntVar(&cfg.repeat, "repeat", minRatioRounds, "rounds of each timed command, taking turns (the median is reported; a ratio is the median of the rounds' ratios); -publish needs at least the default")
	fs.IntVar(&cfg.workers, "workers", 32, "parallel API writers when creating and updating ConfigMaps")
	fs.BoolVar(&cfg.quick, "quick", false, "smoke run: 2000 objects and 1000 events unless -objects or -events are set")
	fs.StringVar(&cfg.bin, "bin", "bin/kubectl-reflect", "the kubectl-reflect binary (make build)")
	fs.StringVar(&cfg.kubectl, "kubectl", "", "the kubectl binary (default: the one built with the control plane, at its version)")
	fs.StringVar(&cfg.out, "out", "", "also write the Markdown report to this file")
	fs.StringVar(&cfg.publish, "publish", "", "write the report to this file too (make bench: BENCHMARKS.md)")
	fs.StringVar(&cfg.note, "note", "", "a line added to the report's machine section (e.g. what else the machine was running)")
	scaleSizes := fs.String("scale-sizes", "2000,20000,100000", "ConfigMaps in the scale part's namespace at each step, ascending, comma-separated")
	fs.DurationVar(&cfg.wait, "wait", 5*time.Minute, "give up on any single wait (a list, a batch of events) after this long")
	fs.IntVar(&cfg.generators, "generators", 1000, "ConfigMapGenerators created for the controller part")
	fs.IntVar(&cfg.changes, "changes", 200, "spec changes timed one at a time in the controller part")
	fs.IntVar(&cfg.concurrency, "concurrency", 4, "reconciles at once of both controllers in the controller part")
	fs.StringVar(&cfg.crcmg, "crcmg", "test/bench/crcmg", "the module of the controller-runtime ConfigMapGenerator controller (built with go build)")
	realisticSmall := cfg.realistic.flags(fs)
	only := fs.String("only", "", "run only these measurements, comma-separated: "+partNames()+" (default: all)")
	fs.StringVar(&cfg.memprofile, "memprofile", "", "write the benchmark's heap profile here while kubectl-reflect's store is synced in it (memory part), and to FILE.relist.before and FILE.relist around a relist (relist part; compare them with pprof -base); sampling every 4 KiB slows the in-process measurements")
	fs.StringVar(&cfg.cpuprofile, "cpuprofile", "", "write the benchmark's CPU profile here while kubectl-reflect's store syncs the first time (memory part)")
	fs.StringVar(&cfg.controllerprofile, "controllerprofile", "", "have run-controller write its CPU profile (kubectl's --profile cpu) to FILE.ROUND, from its start to its stop after the spec changes (controller part; the profiler's own CPU is in the figures)")
	fs.StringVar(&cfg.serveprofile, "serveprofile", "", "have the serve part's daemons write their CPU profile (kubectl's --profile cpu) to FILE, each from its start to its stop (the gets' daemon, then one per fan-out round through a daemon: the last one's remains; the profiler's own CPU is in the figures)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	var err error
	if cfg.only, err = parseParts(*only); err != nil {
		return cfg, err
	}
	cfg.partial = *only
	if cfg.publish != "" && (cfg.partial != "" || cfg.quick) {
		return cfg, errors.New("-publish writes the page whole, from a full run: -only and -quick make a partial one (write it with -out)")
	}
	if cfg.publish != "" && cfg.repeat < minRatioRounds {
		return cfg, fmt.Errorf("-publish needs -repeat %d or more: a ratio is the median of at least %d paired rounds", minRatioRounds, minRatioRounds)
	}
	if cfg.scaleSizes, err = parseSizes(*scaleSizes); err != nil {
		return cfg, err
	}
	if err := cfg.realistic.complete(fs, *realisticSmall || cfg.quick); err != nil {
		return cfg, err
	}
	cfg.command = reproduce(args)
	if cfg.memprofile != "" && !cfg.only[partMemory] && !cfg.only[partRelist] {
		return cfg, errors.New("-memprofile needs the memory or the relist part")
	}
	if cfg.cpuprofile != "" && !cfg.only[partMemory] {
		return cfg, errors.New("-cpuprofile needs the memory part")
	}
	if cfg.controllerprofile != "" && !cfg.only[partController] {
		return cfg, errors.New("-controllerprofile needs the controller part")
	}
	if cfg.serveprofile != "" && !cfg.only[partServe] {
		return cfg, errors.New("-serveprofile needs the serve part")
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.quick {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["objects"] {
			cfg.objects = 2000
		}
		if !set["events"] {
			cfg.events = 1000
		}
		if !set["generators"] {
			cfg.generators = 200
		}
		if !set["changes"] {
			cfg.changes = 50
		}
	}
	for _, v := range []struct {
		name string
		n    int
	}{{"objects", cfg.objects}, {"size", cfg.size}, {"events", cfg.events}, {"repeat", cfg.repeat}, {"workers", cfg.workers},
		{"generators", cfg.generators}, {"changes", cfg.changes}, {"concurrency", cfg.concurrency}} {
		if v.n < 1 {
			return cfg, fmt.Errorf("-%s must be at least 1, got %d", v.name, v.n)
		}
	}
	if cfg.objects < 2 {
		return cfg, errors.New("-objects must be at least 2 (one is the sentinel of the live measurement)")
	}
	return cfg, nil
}

// run starts a control plane, runs every measurement and prints the report.
func run(ctx context.Context, cfg config, stdout, log io.Writer) error {
	dir, err := os.MkdirTemp("", "kubectl-reflect-bench-")
	if err != nil {
		return fmt.Errorf("create temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	cacheDir := filepath.Join(dir, "cache") // discovery cache, shared by both tools

	fmt.Fprintln(log, "bench: starting the control plane")
	cp, err := controlplane.Start(ctx, controlplane.Options{NoControllerManager: true, Build: controlplane.BuildOptions{Progress: log}})
	if err != nil {
		return err
	}
	defer func() {
		if err := cp.Stop(); err != nil {
			fmt.Fprintf(log, "bench: stop control plane: %v\n", err)
		}
	}()
	tools, err := findTools(cfg, cp.Kubectl())
	if err != nil {
		return err
	}
	// Measure a copy: `make build` elsewhere must not swap the binary mid-run.
	if tools.reflect, err = copyExecutable(tools.reflect, filepath.Join(dir, "kubectl-reflect")); err != nil {
		return err
	}

	procs := newProcs([]string{"KUBECACHEDIR=" + cacheDir, "NO_COLOR=1"})
	defer procs.killAll()
	e := &env{cfg: cfg, tools: tools, procs: procs, admin: cp.AdminConfig(), kubeconfig: cp.AdminKubeconfig(), namespace: "bench", log: log}
	if e.clients, err = newClients(cp.AdminConfig(), cfg.workers); err != nil {
		return err
	}

	r, err := measure(ctx, e)
	if err != nil && len(r.reports) == 0 {
		return err
	}
	if err != nil { // report the parts that ran before failing, and say so
		r.failure = err.Error()
	}
	report := r.markdown(cfg)
	if _, werr := io.WriteString(stdout, report); werr != nil {
		return fmt.Errorf("write report: %w", werr)
	}
	for _, path := range []string{cfg.out, cfg.publish} {
		if path == "" {
			continue
		}
		if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
		fmt.Fprintf(log, "bench: wrote the report to %s\n", path)
	}
	return err
}

// measure runs the scenario: populate, then the parts -only selects, in
// the order of allParts.
func measure(ctx context.Context, e *env) (results, error) {
	r := results{parts: e.cfg.only}
	var err error
	if r.machine, err = machineInfo(ctx, e); err != nil {
		return r, err
	}
	if r.parts.needsPopulate() {
		if r.populate, err = populate(ctx, e); err != nil {
			return r, err
		}
	}
	if r.parts[partMemory] {
		if err := populateWidgets(ctx, e); err != nil {
			return r, err
		}
	}
	if r.parts[partGet] || r.parts[partWatch] {
		if err := warmUp(ctx, e); err != nil {
			return r, err
		}
	}
	for _, p := range allParts() {
		if !r.parts[p] {
			continue
		}
		rep, err := p.measure(ctx, e)
		if err != nil {
			r.machine.loadEnd = loadAverage()
			return r, fmt.Errorf("%s: %w", p, err)
		}
		r.reports = append(r.reports, rep)
	}
	r.machine.loadEnd = loadAverage()
	return r, nil
}

// tools are the binaries under test.
type tools struct {
	reflect string // absolute path of kubectl-reflect
	kubectl string // absolute path of kubectl; empty when there is none
}

// findTools finds the binaries; kubectl is cfg.kubectl (a path or a name
// on PATH), else builtKubectl, the one built at the control plane's version.
func findTools(cfg config, builtKubectl string) (tools, error) {
	var t tools
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return t, fmt.Errorf("resolve %s: %w", cfg.bin, err)
	}
	if _, err := os.Stat(bin); err != nil {
		return t, fmt.Errorf("kubectl-reflect binary: %w (run `make build` first, or pass -bin)", err)
	}
	t.reflect = bin
	name := cfg.kubectl
	if name == "" {
		name = builtKubectl
	}
	if t.kubectl, err = exec.LookPath(name); err != nil {
		return t, fmt.Errorf("kubectl: %w", err)
	}
	return t, nil
}

// copyExecutable copies the binary as an installer does (krew extracts it
// from its archive in 32 KiB writes), not in one write: the kernel caches a
// file written in one 60 MB write in large folios, and a process mapping
// such a binary has whole folios resident, about 20 MiB more of its RSS
// than the same binary installed or linked (go build, as kubectl's and
// crcmg's are). Measured by hand: RssFile 56 MiB after os.WriteFile, 35 MiB
// after this copy, at the same RssAnon.
func copyExecutable(from, to string) (string, error) {
	in, err := os.Open(from)
	if err != nil {
		return "", fmt.Errorf("copy kubectl-reflect: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", fmt.Errorf("copy kubectl-reflect: %w", err)
	}
	// The struct hides *os.File's ReaderFrom and WriterTo, so that the copy
	// is plain 32 KiB writes.
	_, err = io.CopyBuffer(struct{ io.Writer }{out}, struct{ io.Reader }{in}, make([]byte, 32<<10))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("copy kubectl-reflect: %w", err)
	}
	return to, nil
}

// env is what every measurement works with.
type env struct {
	cfg        config
	tools      tools
	procs      *procs
	clients    *clients
	admin      *rest.Config // the admin's client configuration, unchanged
	kubeconfig string
	namespace  string
	log        io.Writer
}

func (e *env) logf(format string, args ...any) {
	fmt.Fprintf(e.log, "bench: "+format+"\n", args...)
}

// hasKubectl says whether the baseline can be measured.
func (e *env) hasKubectl() bool { return e.tools.kubectl != "" }

// args completes a kubectl or kubectl-reflect command line: the
// benchmark's namespace and the admin kubeconfig.
func (e *env) args(args ...string) []string {
	return append(args, "-n", e.namespace, "--kubeconfig", e.kubeconfig)
}

// results are everything the report shows.
type results struct {
	parts    parts // the parts that ran
	machine  machine
	populate populateResult
	reports  []partReport // of the parts that ran, in their order
	failure  string       // the error that ended the run early, "" if none
}
