package cmd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/manager"
)

const crdExample = `  # The CRD configmap-generator reconciles, as YAML
  kubectl reflect crd print configmap-generator

  # Install it (server-side apply) and wait until it is established
  kubectl reflect crd install configmap-generator`

// crdGVR is the resource of CustomResourceDefinitions.
var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

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
		ValidArgsFunction: completeBuiltins(registry, false),
		RunE:              runE(print),
	})
	install := &CRDOptions{configFlags: flags, IOStreams: streams, registry: registry, install: true}
	ic := &cobra.Command{
		Use:               "install NAME",
		Short:             "Apply the CRD of built-in controller NAME (server-side) and wait until it is established",
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeBuiltins(registry, false),
		RunE:              runE(install),
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
	o.crd = &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b.CRD, &o.crd.Object); err != nil {
		return fmt.Errorf("reading the CRD of %s: %w", b.Name, err)
	}
	return nil
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
	crds := dyn.Resource(crdGVR)
	name := o.crd.GetName()
	_, err = crds.Apply(ctx, name, o.crd, metav1.ApplyOptions{FieldManager: manager.FieldManager, Force: true})
	if err != nil {
		return fmt.Errorf("applying customresourcedefinition %s: %w", name, err)
	}
	fmt.Fprintf(o.Out, "customresourcedefinition.apiextensions.k8s.io/%s serverside-applied\n", name)
	if err := waitEstablished(ctx, crds, name, o.Timeout); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "customresourcedefinition.apiextensions.k8s.io/%s condition met\n", name)
	return nil
}

// waitEstablished polls the CRD until its Established condition is True
// (the API server serves the new resource), as kubectl wait
// --for=condition=Established does.
func waitEstablished(ctx context.Context, crds dynamic.NamespaceableResourceInterface, name string, timeout time.Duration) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		u, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				return true, nil
			}
		}
		return false, nil
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(ctx.Err(), context.Canceled):
		return errInterrupted
	case last != nil:
		return fmt.Errorf("waiting for customresourcedefinition %s to be established: %w", name, last)
	}
	return fmt.Errorf("customresourcedefinition %s not established within --timeout %s", name, timeout)
}
