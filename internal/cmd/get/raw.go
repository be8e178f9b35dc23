package get

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/rawhttp"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/output"
)

// rawGet is get's --raw: the API server's answer to a GET of a path,
// written as it comes, as kubectl get --raw writes it (kubectl's
// rawhttp.RawGet). No store holds what a path answers: it is asked of the
// API server, never of a daemon.
type rawGet struct {
	Path string
}

// validate refuses what kubectl get refuses beside --raw, in its words.
func (r rawGet) validate(o *GetOptions, args []string) error {
	switch {
	case len(args) > 0:
		return errors.New("arguments may not be passed when --raw is specified")
	case o.Watch || o.WatchOnly || o.LabelSelector != "":
		return errors.New("--raw may not be specified with other flags that filter the server request or alter the output")
	case *o.PrintFlags.OutputFormat != "":
		return errors.New("--raw and --output are mutually exclusive")
	}
	if _, err := url.ParseRequestURI(r.Path); err != nil {
		return fmt.Errorf("--raw must be a valid URL path: %w", err)
	}
	return nil
}

// run GETs the path and writes the answer to o.Out; the server's error is
// reported as kubectl reports it.
func (r rawGet) run(ctx context.Context, o *GetOptions) error {
	rc, err := cmdutil.NewFactory(o.ConfigFlags).RESTClient() // the client kubectl get --raw uses
	if err != nil {
		return fmt.Errorf("creating a REST client: %w", err)
	}
	if err := rawhttp.RawGet(rc, o.IOStreams, r.Path); err != nil {
		if ctx.Err() != nil {
			return cli.ErrInterrupted
		}
		fmt.Fprintln(o.ErrOut, output.KubectlError(err, true))
		return cli.ErrReported
	}
	return nil
}
