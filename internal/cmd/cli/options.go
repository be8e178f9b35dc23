package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"
)

// ErrReported is returned by commands that already printed their errors.
var ErrReported = errors.New("errors were reported")

// Options is what every command's Options struct does, in this order.
type Options interface {
	Complete(args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// RunE is a command's RunE: Complete, Validate, Run.
func RunE(o Options) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		if err := o.Complete(args); err != nil {
			return err
		}
		if err := o.Validate(); err != nil {
			return err
		}
		return o.Run(c.Context())
	}
}

// Joined are the errors errors.Join joined into err, flattened; err alone
// if it is not a join.
//
// An ExitStatus is looked through: its error's lines are its lines.
func Joined(err error) []error {
	if es, ok := err.(*ExitStatus); ok {
		return Joined(es.Err)
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, Joined(e)...)
	}
	return out
}
