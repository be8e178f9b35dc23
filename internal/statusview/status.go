package statusview

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/daemon"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// Print writes s as `serve status` shows it: the daemon's pid, address,
// start and kubeconfig, what it records (serve --record) and what the API
// server refused it, a table of its resources (objects, resourceVersion,
// watchers, events sent, lag, and whether each is recorded when it
// records), and one of its controllers if it runs any; then, when it
// records, where the record begins and why, its size, and what each kind
// wrote in the last hour (recording.Status).
func Print(w io.Writer, s daemon.Status, info daemon.Info, kubeconfig string) error {
	fmt.Fprintf(w, "Daemon pid %d at %s since %s\nkubeconfig: %s\n", info.PID, info.Server, info.Started.Format(time.RFC3339), kubeconfig)
	recording := info.History != ""
	if recording {
		what := strings.Join(info.Recorded, ", ")
		if info.RecordsAll {
			what = fmt.Sprintf("every kind the user may list and watch (%d now)", len(info.Recorded))
		}
		fmt.Fprintf(w, "Recording to %s: %s\n", info.History, what)
		if len(info.Refused) > 0 {
			fmt.Fprintf(w, "Not recording what the user may not list and watch (403): %s\n", strings.Join(info.Refused, ", "))
		}
	}
	fmt.Fprintln(w)
	header := []string{"RESOURCE", "OBJECTS", "RESOURCEVERSION", "WATCHERS", "EVENTS SENT", "LAG"}
	if recording {
		header = append(header, "RECORDED")
	}
	rows := make([][]string, 0, len(s.Resources))
	for _, r := range s.Resources {
		name := r.Resource
		if r.Namespace != "" {
			name += " -n " + r.Namespace
		}
		row := []string{name, strconv.Itoa(r.Objects), r.ResourceVersion,
			strconv.FormatInt(r.Watchers, 10), strconv.FormatInt(r.EventsSent, 10), formatLag(r.LagSeconds)}
		if recording {
			row = append(row, yesNo(r.Namespace == "" && slices.Contains(info.Recorded, r.Resource)))
		}
		rows = append(rows, row)
	}
	if err := output.PlainTable(w, header, rows); err != nil {
		return err
	}
	if len(s.Controllers) > 0 {
		rows = rows[:0]
		for _, c := range s.Controllers {
			rows = append(rows, []string{c.Name, strconv.FormatBool(c.Ready), strconv.FormatUint(c.Reconciles, 10)})
		}
		fmt.Fprintln(w)
		if err := output.PlainTable(w, []string{"CONTROLLER", "READY", "RECONCILES"}, rows); err != nil {
			return err
		}
	}
	if !recording || s.History == nil {
		return nil
	}
	fmt.Fprintln(w)
	return s.History.Print(w)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// formatLag writes a lag in seconds as a short duration: 0s, 850µs, 3.2ms,
// 1.5s.
func formatLag(seconds float64) string {
	return output.ShortDuration(time.Duration(seconds * float64(time.Second)))
}
