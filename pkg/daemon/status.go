package daemon

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// Print writes s as `serve status` shows it: the daemon's pid, address,
// start and kubeconfig, a table of its resources (objects, resourceVersion,
// watchers, events sent, lag), and one of its controllers if it runs any.
func (s Status) Print(w io.Writer, info Info, kubeconfig string) error {
	fmt.Fprintf(w, "Daemon pid %d at %s since %s\nkubeconfig: %s\n\n", info.PID, info.Server, info.Started.Format(time.RFC3339), kubeconfig)
	rows := make([][]string, 0, len(s.Resources))
	for _, r := range s.Resources {
		name := r.Resource
		if r.Namespace != "" {
			name += " -n " + r.Namespace
		}
		rows = append(rows, []string{name, strconv.Itoa(r.Objects), r.ResourceVersion,
			strconv.FormatInt(r.Watchers, 10), strconv.FormatInt(r.EventsSent, 10), formatLag(r.LagSeconds)})
	}
	if err := output.PlainTable(w, []string{"RESOURCE", "OBJECTS", "RESOURCEVERSION", "WATCHERS", "EVENTS SENT", "LAG"}, rows); err != nil {
		return err
	}
	if len(s.Controllers) == 0 {
		return nil
	}
	rows = rows[:0]
	for _, c := range s.Controllers {
		rows = append(rows, []string{c.Name, strconv.FormatBool(c.Ready), strconv.FormatUint(c.Reconciles, 10)})
	}
	fmt.Fprintln(w)
	return output.PlainTable(w, []string{"CONTROLLER", "READY", "RECONCILES"}, rows)
}

// formatLag writes a lag in seconds as a short duration: 0s, 850µs, 3.2ms,
// 1.5s.
func formatLag(seconds float64) string {
	return output.ShortDuration(time.Duration(seconds * float64(time.Second)))
}
