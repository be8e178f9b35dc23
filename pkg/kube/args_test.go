package kube

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/restmapper"
)

// replaceAliases is cli-runtime's category expansion over fixed
// categories: "all" and a CRD's "toys".
var replaceAliases = resource.NewFakeBuilder(nil, nil, func() (restmapper.CategoryExpander, error) {
	return restmapper.SimpleCategoryExpander{Expansions: map[string][]schema.GroupResource{
		"all":  {{Resource: "pods"}, {Resource: "services"}, {Group: "apps", Resource: "deployments"}},
		"toys": {{Group: "example.com", Resource: "widgets"}},
	}}, nil
}).ReplaceAliases

// TestParseArgs: the resource arguments kubectl accepts, read as kubectl
// reads them, in the order given.
func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want []Arg
	}{
		{[]string{"cm"}, []Arg{{Kind: "cm"}}},
		{[]string{"cm,secrets"}, []Arg{{Kind: "cm"}, {Kind: "secrets"}}},
		{[]string{"secrets,cm,secrets"}, []Arg{{Kind: "secrets"}, {Kind: "cm"}}}, // kubectl drops a repeated string
		{[]string{"cm,configmaps"}, []Arg{{Kind: "cm"}, {Kind: "configmaps"}}},   // the same kind: ResolveArgs merges
		{[]string{"all"}, []Arg{{Kind: "pods"}, {Kind: "services"}, {Kind: "deployments.apps"}}},
		{[]string{"cm,toys,all"}, []Arg{{Kind: "cm"}, {Kind: "widgets.example.com"}, {Kind: "pods"}, {Kind: "services"}, {Kind: "deployments.apps"}}},
		{[]string{"toys", "w1"}, []Arg{{Kind: "widgets.example.com", Names: []string{"w1"}}}}, // one kind: names allowed
		{[]string{"cm", "a"}, []Arg{{Kind: "cm", Names: []string{"a"}}}},
		{[]string{"cm", "a", "b", "a"}, []Arg{{Kind: "cm", Names: []string{"a", "b", "a"}}}},
		{[]string{"cm,cm", "a"}, []Arg{{Kind: "cm", Names: []string{"a"}}}},
		{[]string{"cm,secret", "a", "b"}, []Arg{
			{Kind: "cm", Names: []string{"a"}}, {Kind: "cm", Names: []string{"b"}},
			{Kind: "secret", Names: []string{"a"}}, {Kind: "secret", Names: []string{"b"}},
		}},
		{[]string{"cm/a"}, []Arg{{Kind: "cm", Names: []string{"a"}}}},
		{[]string{"cm/a", "secret/b", "cm/c"}, []Arg{
			{Kind: "cm", Names: []string{"a"}}, {Kind: "secret", Names: []string{"b"}}, {Kind: "cm", Names: []string{"c"}},
		}},
		{[]string{"cm,cm/a"}, []Arg{{Kind: "cm,cm", Names: []string{"a"}}}}, // one kind once repeats are dropped; not a known kind
		{[]string{"all/a"}, []Arg{{Kind: "all", Names: []string{"a"}}}},     // no category expansion in KIND/NAME
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := ParseArgs(tt.args, ArgsOptions{ReplaceAliases: replaceAliases})
			if err != nil {
				t.Fatalf("ParseArgs(%q): %v", tt.args, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseArgs(%q) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

// TestParseArgsErrors: what kubectl refuses, with its words.
func TestParseArgsErrors(t *testing.T) {
	// cli-runtime names the command after os.Args[0] in one message;
	// ArgsOptions.Command names it instead.
	mixed := func(command string) string {
		return `there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. '` +
			command + ` resource/<resource_name>' instead of '` + command + ` resource resource/<resource_name>'`
	}
	tests := []struct {
		args     []string
		selector bool
		command  string
		want     string
	}{
		{args: nil, want: "no resource type given"},
		{args: []string{"cm", "cm/a"}, want: mixed(filepath.Base(os.Args[0]) + " get")},
		{args: []string{"cm/a", "b"}, want: mixed(filepath.Base(os.Args[0]) + " get")},
		{args: []string{"cm/a", "secret/b", "c"}, want: mixed(filepath.Base(os.Args[0]) + " get")},
		{args: []string{"cm", "cm/a"}, command: "kubectl reflect watch", want: mixed("kubectl reflect watch")},
		{args: []string{"cm/a/b"}, want: "arguments in resource/name form may not have more than one slash"},
		{args: []string{"cm,secret", "a/b"}, want: "arguments in resource/name form may not have more than one slash"},
		{args: []string{"cm/"}, want: "arguments in resource/name form must have a single resource and name"},
		{args: []string{"/a"}, want: "arguments in resource/name form must have a single resource and name"},
		{args: []string{"cm,secret/a"}, want: "arguments in resource/name form must have a single resource and name"},
		{args: []string{"all", "a"}, want: "you must specify only one resource"},
		{args: []string{"cm", "a"}, selector: true, want: "name cannot be provided when a selector is specified"},
		{args: []string{"cm,secret", "a"}, selector: true, want: "selectors and the all flag cannot be used when passing resource/name arguments"},
		{args: []string{"cm/a"}, selector: true, want: "selectors and the all flag cannot be used when passing resource/name arguments"},
		{args: []string{"all", "a"}, selector: true, want: "name cannot be provided when a selector is specified"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := ParseArgs(tt.args, ArgsOptions{Selector: tt.selector, ReplaceAliases: replaceAliases, Command: tt.command})
			if err == nil {
				t.Fatalf("ParseArgs(%q) = %+v, want an error", tt.args, got)
			}
			if err.Error() != tt.want {
				t.Errorf("ParseArgs(%q) = %q, want %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestResolveArgs: kinds resolve one by one; kinds without names are kept
// once, names of one resource in a row are merged.
func TestResolveArgs(t *testing.T) {
	tests := []struct {
		name string
		args []Arg
		want []Target
	}{
		{"kinds", []Arg{{Kind: "secrets"}, {Kind: "cm"}, {Kind: "configmaps"}, {Kind: "deploy"}},
			[]Target{{Resource: secrets}, {Resource: configMaps}, {Resource: deployments}}},
		{"names of one kind", []Arg{{Kind: "cm", Names: []string{"a", "b"}}},
			[]Target{{Resource: configMaps, Names: []string{"a", "b"}}}},
		{"one resource in a row", []Arg{{Kind: "cm", Names: []string{"a"}}, {Kind: "configmap", Names: []string{"b"}}, {Kind: "secrets", Names: []string{"c"}}},
			[]Target{{Resource: configMaps, Names: []string{"a", "b"}}, {Resource: secrets, Names: []string{"c"}}}},
		{"a resource again later", []Arg{{Kind: "cm", Names: []string{"a"}}, {Kind: "secrets", Names: []string{"b"}}, {Kind: "cm", Names: []string{"a"}}},
			[]Target{{Resource: configMaps, Names: []string{"a"}}, {Resource: secrets, Names: []string{"b"}}, {Resource: configMaps, Names: []string{"a"}}}},
	}
	mapper := testMapper(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ResolveArgs(mapper, tt.args)
			if err != nil {
				t.Fatalf("ResolveArgs(%+v): %v", tt.args, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ResolveArgs(%+v) = %+v, want %+v", tt.args, got, tt.want)
			}
		})
	}
}

// TestResolveArgsErrors: the first kind the server lacks fails all, in
// kubectl's words.
func TestResolveArgsErrors(t *testing.T) {
	tests := []struct {
		args []Arg
		want string
	}{
		{[]Arg{{Kind: "cm"}, {Kind: "x"}}, `the server doesn't have a resource type "x"`},
		{[]Arg{{Kind: "cm,cm", Names: []string{"a"}}}, `the server doesn't have a resource type "cm,cm"`},
		{[]Arg{{Kind: "configmaps.apps"}}, `the server doesn't have a resource type "configmaps" in group "apps"`},
		{[]Arg{{Kind: "deployments.v2.apps"}}, `the server doesn't have a resource type "deployments" in group "v2.apps"`},
		{[]Arg{{Kind: ""}}, `the server doesn't have a resource type ""`},
	}
	mapper := testMapper(t)
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got, err := ResolveArgs(mapper, tt.args)
			if err == nil {
				t.Fatalf("ResolveArgs(%+v) = %+v, want an error", tt.args, got)
			}
			if err.Error() != tt.want {
				t.Errorf("ResolveArgs(%+v) = %q, want %q", tt.args, err, tt.want)
			}
		})
	}
}
