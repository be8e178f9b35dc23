// Command kubectl-reflect is the kubectl plugin `kubectl reflect`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd"
	_ "github.com/kubectl-reflect/kubectl-reflect/internal/untranslated" // before kubectl's commands translate their help
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	streams := genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}
	code := cmd.Execute(ctx, cmd.NewCmdReflect(streams), streams)
	stop()
	os.Exit(code)
}
