//go:build linux

package main

import (
	"context"
	"fmt"
)

// historyBlameLimit is blame's target: seconds to exit (issue 49).
const historyBlameLimit = 0.2

// timeBlames times `blame cm/NAME` and `blame cm/NAME --field
// data.payload` of the ConfigMap sizePerRevision edited historyEdits
// times, from the history alone (no daemon runs), taking turns.
func (he *historyEnv) timeBlames(ctx context.Context, r *historyResult) error {
	name := "cm/" + objectName(1)
	whole := []string{"blame", name, "-n", he.namespace, "--kubeconfig", he.kubeconfig}
	field := append(append([]string{}, whole...), "--field", "data.payload")
	for i := -1; i < he.cfg.repeat; i++ { // -1 warms up
		for _, args := range [][]string{whole, field} {
			s, err := timeToExit(ctx, he.env, he.tools.reflect, args)
			if err == nil && s.lines < 10 {
				err = fmt.Errorf("printed %d lines", s.lines)
			}
			if err != nil {
				return fmt.Errorf("%v: %w", args, err)
			}
			switch {
			case i < 0:
			case len(args) == len(whole):
				r.blame = append(r.blame, s)
			default:
				r.blameField = append(r.blameField, s)
			}
		}
	}
	return nil
}
