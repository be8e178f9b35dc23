package docs

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/postgres"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// update rewrites the outputs that differ with what the commands printed.
var update = flag.Bool("update", false, "rewrite the pages' outputs that differ with the commands' output")

// cluster is the control plane the pages' examples run against; its
// kube-controller-manager runs the garbage collector and the namespace
// controller.
var cluster controlplane.Shared

// fleet is the clusters of the pages that ask for several (a page's
// doc-test-page directive), started when the first asks.
var fleet lazyFleet

// lazyFleet is a SharedFleet whose names the first page that asks gives.
type lazyFleet struct {
	mu sync.Mutex
	f  *controlplane.SharedFleet
}

// Get is the fleet of names; every page names the same clusters.
func (l *lazyFleet) Get(t *testing.T, names []string) *controlplane.Fleet {
	l.mu.Lock()
	if l.f == nil {
		l.f = &controlplane.SharedFleet{Names: names}
	}
	f := l.f
	l.mu.Unlock()
	if !slices.Equal(f.Names, names) {
		t.Fatalf("pages ask for fleets %v and %v: give them one", f.Names, names)
	}
	return f.Get(t)
}

func (l *lazyFleet) stop() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	return l.f.Stop()
}

// pg is the PostgreSQL server of the pages that ask for databases.
var pg postgres.Shared

// binDir holds kubectl-reflect (built with -race for this run) and the
// kubectl built with the control plane: the examples' PATH starts with it.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binDir = filepath.Dir(b.Reflect)
		if err := os.Symlink(b.ControlPlane.Kubectl, filepath.Join(binDir, "kubectl")); err != nil {
			return fail(err)
		}
		code := cluster.Run(m)
		if err := fleet.stop(); err != nil {
			code = fail(err)
		}
		if err := pg.Stop(); err != nil {
			code = fail(err)
		}
		return code
	}))
}

func fail(err error) int {
	os.Stderr.WriteString(err.Error() + "\n")
	return 1
}
