package cmd

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestFlagUsagesHaveNoBackquotes: pflag takes a back-quoted word of a
// flag's usage for the name of its value, so `kubectl reflect watch` in a
// usage printed "-w, --watch kubectl reflect watch" in the help.
func TestFlagUsagesHaveNoBackquotes(t *testing.T) {
	root := NewCmdReflect(genericiooptions.NewTestIOStreamsDiscard())
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage has a back-quote: %q", c.CommandPath(), f.Name, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
