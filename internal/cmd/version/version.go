package version

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	build "github.com/kubectl-reflect/kubectl-reflect/internal/version"
)

// VersionOptions are the flags of `kubectl reflect version`.
type VersionOptions struct {
	genericiooptions.IOStreams
	Output string
}

// NewCmdVersion prints the plugin's version.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	o := &VersionOptions{IOStreams: streams}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl reflect",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	c.Flags().StringVarP(&o.Output, "output", "o", "", "One of 'yaml' or 'json'; empty for one line")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]cobra.Completion{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Validate checks the output format.
func (o *VersionOptions) Validate() error {
	if o.Output != "" && o.Output != "json" && o.Output != "yaml" {
		return fmt.Errorf("--output must be 'yaml' or 'json', not %q", o.Output)
	}
	return nil
}

// Run prints the version.
func (o *VersionOptions) Run() error {
	info := build.Get()
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(o.Out, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(info)
		if err != nil {
			return err
		}
		_, err = o.Out.Write(b)
		return err
	}
	_, err := fmt.Fprintf(o.Out, "kubectl-reflect %s (commit %s, built %s, %s)\n",
		info.Version, orUnknown(info.Commit), orUnknown(info.BuildDate), info.GoVersion)
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
