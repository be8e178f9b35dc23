package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/test/controlplane"
)

// TestWatchSilentConnection: a watch whose connection stops carrying
// anything and stays open (a proxy that drops every byte, as a network that
// changed under a laptop does; TCP keepalive cannot see it, since the proxy
// is the peer) is taken as dead once the server's bookmarks stop, and
// resumes from its last resourceVersion on a new connection, as after the
// server's end of the watch: a change made meanwhile is printed, nothing
// is printed twice, and no warning (a silence is no proof of death).
func TestWatchSilentConnection(t *testing.T) {
	cp := controlplane.StartForTest(t, controlplane.Options{NoControllerManager: true})
	cs := admin(t, cp)
	ns := namespace(t, cs)
	watched := map[string]string{"watched": "yes"}
	createCM(t, cs, ns, "before", watched, "k", "0")
	px := newProxy(t, cp.Server())
	// -v=6 logs each request once its answer's headers came: the watch's
	// line says it is open.
	p := start(t, cp, "watch", "cm", "-n", ns, "-l", "watched=yes", "-o", "json",
		"--server", px.URL(), "--watch-silence-timeout", "2s", "-v", "6")
	if ev := p.nextEvent(); ev.String() != "APPLIED ConfigMap/"+ns+"/before" {
		t.Fatalf("first event %v", ev)
	}
	p.WaitErrLine(`url="https://\S+/configmaps\?\S*watch=1" status="200 OK"`)

	// The watch cache sends a watch a bookmark about every minute, once its
	// resourceVersion has moved past the watch's: a change of a ConfigMap
	// that the watch does not select moves it, and sends nothing else.
	select {
	case <-px.bursts: // what came before
	default:
	}
	createCM(t, cs, ns, "unwatched", nil, "k", "0")
	select {
	case <-px.bursts:
	case <-time.After(2*time.Minute + patience):
		t.Fatal("no bookmark within two minutes")
	}

	px.blackhole()
	createCM(t, cs, ns, "after", watched, "k", "0")
	if ev := p.nextEvent(); ev.String() != "APPLIED ConfigMap/"+ns+"/after" {
		t.Fatalf("after the blackhole: %v", ev)
	}
	p.Quiet(time.Second)
	if strings.Contains(p.Stderr.String(), "warning") {
		t.Errorf("a silence is a restart, not a failure; stderr:\n%s", p.Stderr.String())
	}
}
