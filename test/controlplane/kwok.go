package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// KwokOptions configure kwok (sigs.k8s.io/kwok), which plays the kubelet of
// fake nodes: it marks them Ready, renews their Leases in kube-node-lease,
// and takes the pods bound to them through their lifecycle (Running with a
// pod IP, deleted when deleted), driven by the Stages kwok ships (see
// kwokSet). No container runs anywhere.
type KwokOptions struct {
	// Nodes is how many fake nodes Start creates (see AddNodes); Start
	// returns once each is Ready and has a Lease.
	Nodes int
	// NodeLeaseDuration is the duration of each node's Lease; kwok renews a
	// Lease every quarter of it, as the kubelet does. It is rounded up to
	// whole seconds; zero means 40s, the kubelet's default.
	NodeLeaseDuration time.Duration
}

func (k *KwokOptions) withDefaults() *KwokOptions {
	if k == nil {
		return nil
	}
	o := *k
	if o.NodeLeaseDuration <= 0 {
		o.NodeLeaseDuration = 40 * time.Second
	}
	return &o
}

// leaseSeconds is NodeLeaseDuration in whole seconds, rounded up.
func (k *KwokOptions) leaseSeconds() int {
	return int((k.NodeLeaseDuration + time.Second - 1) / time.Second)
}

// kwokStagesFile is the file, beside kwok in the cache, holding the Stages
// kwok plays.
const kwokStagesFile = "kwok-stages.yaml"

// kwokStageKustomization is the directory of kwok's module whose Stages the
// harness gives kwok: "fast" nodes (Ready at once, then a status heartbeat
// every 10 to 20 minutes while the Lease is the real heartbeat) and "fast"
// pods (Running and Ready once bound, Succeeded or Failed for those that end,
// gone once deleted), as kwok's own documentation recommends and kwokctl
// uses.
const kwokStageKustomization = "kustomize/stage/fast"

// kwokSet is kwok, built from the kwoktools module, and its Stages, copied
// from the same module: the files are kwok's own, of the version built.
func kwokSet() binarySet {
	return binarySet{
		what:    "kwok",
		module:  "kwoktools",
		recipe:  "kwok recipe 1; stages " + kwokStageKustomization,
		targets: []buildTarget{{"sigs.k8s.io/kwok/cmd/kwok", "kwok", "kwok"}},
		files:   []string{kwokStagesFile},
		after:   writeKwokStages,
	}
}

// writeKwokStages writes the Stages of kwokStageKustomization, from the
// kwok module the kwoktools module requires, into dir as one YAML stream.
func writeKwokStages(ctx context.Context, goCmd, moduleDir, dir string) error {
	cmd := exec.CommandContext(ctx, goCmd, "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok")
	cmd.Dir = moduleDir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("locate the kwok module: %w\n%s", err, stderr.Bytes())
	}
	root := strings.TrimSpace(string(out))
	if root == "" {
		return fmt.Errorf("locate the kwok module: go list printed no directory (is it downloaded?)")
	}
	docs, err := kustomizeResources(filepath.Join(root, kwokStageKustomization))
	if err != nil {
		return fmt.Errorf("kwok's stages: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# kwok's Stages, from %s in %s\n", kwokStageKustomization, root)
	for _, d := range docs {
		b.WriteString("---\n")
		b.Write(d)
		if !bytes.HasSuffix(d, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	return os.WriteFile(filepath.Join(dir, kwokStagesFile), b.Bytes(), 0o644)
}

// kustomization is the part of a kustomization.yaml kustomizeResources
// understands.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
}

// kustomizeResources returns the files a kustomization directory lists as
// resources, in order, following resources that are directories (other
// kustomizations) depth first. It knows plain resources only, which is all
// kwok's stage kustomizations use, and fails on any other field, so that a
// kwok whose stages come to need patches is noticed, not half read.
func kustomizeResources(dir string) ([][]byte, error) {
	return kustomizeResourcesDepth(dir, 0)
}

func kustomizeResourcesDepth(dir string, depth int) ([][]byte, error) {
	if depth > 10 {
		return nil, fmt.Errorf("%s: kustomizations nested too deep", dir)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k kustomization
	if err := yaml.UnmarshalStrict(raw, &k); err != nil {
		return nil, fmt.Errorf("%s/kustomization.yaml: %w", dir, err)
	}
	var docs [][]byte
	for _, r := range k.Resources {
		path := filepath.Join(dir, r)
		fi, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		if fi.IsDir() {
			sub, err := kustomizeResourcesDepth(path, depth+1)
			if err != nil {
				return nil, err
			}
			docs = append(docs, sub...)
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		docs = append(docs, b)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("%s lists no resources", dir)
	}
	return docs, nil
}

// KwokNodeAnnotation marks the nodes kwok manages (with the value "fake"),
// as kwok's own node templates do; nodes without it are not kwok's.
const KwokNodeAnnotation = "kwok.x-k8s.io/node"

// kwokArgs are kwok's flags: the admin's kubeconfig, the Stages, the nodes
// annotated as kwok's, and node Leases.
func (c *ControlPlane) kwokArgs() []string {
	return []string{
		"--kubeconfig=" + c.adminKubeconfig,
		"--config=" + c.bins.KwokStages,
		"--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=fake",
		"--node-lease-duration-seconds=" + strconv.Itoa(c.opts.Kwok.leaseSeconds()),
	}
}

// kwokEnv points kwok's work directory into the control plane's, so that it
// never reads a user's ~/.kwok/kwok.yaml (which it would load besides
// --config).
func (c *ControlPlane) kwokEnv() []string {
	return []string{"KWOK_WORKDIR=" + filepath.Join(c.dir, "kwok")}
}
