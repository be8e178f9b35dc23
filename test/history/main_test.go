package history

import (
	"fmt"
	"os"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
	"github.com/kubectl-reflect/kubectl-reflect/test/postgres"
	"github.com/kubectl-reflect/kubectl-reflect/test/testkit"
)

// cluster is shared by every test of this package; each works in a
// namespace of its own, with a daemon and a history of its own.
// Its API server keeps no watch cache of PodTemplates: a watch of them
// from an old resourceVersion is etcd's, which CompactEtcd makes 410
// (TestWatchFromHistory).
var cluster = controlplane.Shared{Options: controlplane.Options{NoControllerManager: true, ExtraAPIServerFlags: []string{"--watch-cache-sizes=podtemplates#0"}}}

// pg is the PostgreSQL server of the tests that record to one.
var pg postgres.Shared

// binary is the kubectl-reflect built for this run; kubectlBinary the
// kubectl of the cluster's version.
var binary, kubectlBinary string

func TestMain(m *testing.M) {
	os.Exit(testkit.Main(m, func(b testkit.Built) int {
		binary, kubectlBinary = b.Reflect, b.ControlPlane.Kubectl
		code := cluster.Run(m)
		if err := pg.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stopping PostgreSQL: %v\n", err)
			code = max(code, 1)
		}
		return code
	}))
}
