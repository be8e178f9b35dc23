package crd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/cli"
	"github.com/kubectl-reflect/kubectl-reflect/internal/cmd/completion"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
)

const crdExample = `  # The CRD configmap-generator reconciles, as YAML
  kubectl reflect crd print configmap-generator

  # Install it (server-side apply) and wait until it is established
  kubectl reflect crd install configmap-generator`

// NewCmdCRD is `kubectl reflect crd`, with print and install.
func NewCmdCRD(flags *genericclioptions.ConfigFlags, streams genericiooptions.IOStreams, registry *builtin.Registry) *cobra.Command {
	c := &cobra.Command{
		Use:     "crd (print|install) NAME",
		Short:   "Print or install the CustomResourceDefinition a built-in controller reconciles",
		Example: crdExample,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("unknown command %q for \"kubectl reflect crd\": want print or install", args[0])
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			return errors.New("crd needs a command: print NAME or install NAME")
		},
	}
	print := &CRDOptions{configFlags: flags, IOStreams: streams, registry: registry}
	c.AddCommand(&cobra.Command{
		Use:               "print NAME",
		Short:             "Print the CRD of built-in controller NAME as YAML",
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completion.Builtins(registry, false),
		RunE:              cli.RunE(print),
	})
	install := &CRDOptions{configFlags: flags, IOStreams: streams, registry: registry, install: true}
	ic := &cobra.Command{
		Use:               "install NAME",
		Short:             "Apply the CRD of built-in controller NAME (server-side) and wait until it is established",
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completion.Builtins(registry, false),
		RunE:              cli.RunE(install),
	}
	ic.Flags().DurationVar(&install.Timeout, "timeout", time.Minute, "How long to wait for the CRD to be established")
	c.AddCommand(ic)
	return c
}

// CRDOptions are the inputs of `crd print` and `crd install`.
type CRDOptions struct {
	configFlags *genericclioptions.ConfigFlags
	genericiooptions.IOStreams
	registry *builtin.Registry
	install  bool

	Timeout time.Duration

	builtin builtin.Spec
	crd     *unstructured.Unstructured
}

// Complete finds the built-in and reads its CRD.
func (o *CRDOptions) Complete(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("one controller name expected, got %d; see 'kubectl reflect run-controller --list'", len(args))
	}
	b, ok := o.registry.Lookup(args[0])
	if !ok {
		return fmt.Errorf("unknown controller %q; see 'kubectl reflect run-controller --list'", args[0])
	}
	if b.CRD == nil {
		return fmt.Errorf("controller %s needs no CRD", b.Name)
	}
	o.builtin = b
	var err error
	o.crd, err = b.ParseCRD()
	return err
}

// Validate checks the flags.
func (o *CRDOptions) Validate() error {
	if o.install && o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.Timeout)
	}
	return nil
}

// Run prints the CRD, or applies it and waits until it is established.
func (o *CRDOptions) Run(ctx context.Context) error {
	if !o.install {
		_, err := o.Out.Write(o.builtin.CRD)
		return err
	}
	cfg, err := o.configFlags.ToRESTConfig()
	if err != nil {
		return fmt.Errorf("reading the kubeconfig: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("creating a client: %w", err)
	}
	name := o.crd.GetName()
	if err := builtin.ApplyCRD(ctx, dyn, o.crd, manager.FieldManager); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "customresourcedefinition.apiextensions.k8s.io/%s serverside-applied\n", name)
	if err := builtin.WaitEstablished(ctx, dyn, name, o.Timeout); err != nil {
		if errors.Is(err, context.Canceled) {
			return cli.ErrInterrupted
		}
		return err
	}
	fmt.Fprintf(o.Out, "customresourcedefinition.apiextensions.k8s.io/%s condition met\n", name)
	return nil
}
