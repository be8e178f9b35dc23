package cmd

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// kubectl's --profile and --profile-output: a CPU or heap profile of the
// command, for whoever measures it. The CPU profiler is the process's, so
// startProfile starts it before the command runs and stopProfile, called by
// Execute however the command ended, stops it or writes the heap profile.
func addProfileFlags(f *pflag.FlagSet) {
	f.String("profile", "none", "Name of profile to capture. One of (none|cpu|heap)")
	f.String("profile-output", "profile.pprof", "Name of the file to write the profile to")
}

func profileFlags(root *cobra.Command) (kind, output string) {
	f := root.PersistentFlags()
	kind, _ = f.GetString("profile")
	output, _ = f.GetString("profile-output")
	return kind, output
}

// startProfile validates --profile and starts a CPU profile.
func startProfile(root *cobra.Command) error {
	kind, output := profileFlags(root)
	switch kind {
	case "none", "heap":
		return nil
	case "cpu":
	default:
		return fmt.Errorf("unknown --profile %q: want none, cpu or heap", kind)
	}
	f, err := os.Create(output)
	if err != nil {
		return fmt.Errorf("creating the profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return fmt.Errorf("starting the CPU profile: %w", err)
	}
	return nil // the profiler writes f until stopProfile
}

// stopProfile ends what --profile asked for.
func stopProfile(root *cobra.Command) error {
	kind, output := profileFlags(root)
	switch kind {
	case "cpu":
		pprof.StopCPUProfile() // a no-op when it never started
	case "heap":
		f, err := os.Create(output)
		if err != nil {
			return fmt.Errorf("creating the profile: %w", err)
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.WriteHeapProfile(f); err != nil {
			return fmt.Errorf("writing the profile: %w", err)
		}
	}
	return nil
}
