package serve

import (
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/configmapgenerator"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/builtin/mirror"
)

func TestWithKinds(t *testing.T) {
	reads := []string{"configmapgenerators.kubectl-reflect.io", "configmaps"}
	tests := []struct {
		args, kinds, want []string
	}{
		{nil, nil, nil},
		{[]string{"cm"}, nil, []string{"cm"}},
		{nil, reads, []string{"configmapgenerators.kubectl-reflect.io,configmaps"}},
		{[]string{"cm,secrets"}, reads, []string{"cm,secrets,configmapgenerators.kubectl-reflect.io,configmaps"}},
		{[]string{"cm/a"}, reads, []string{"cm/a"}},       // names objects: serve refuses it as it is
		{[]string{"cm", "a"}, reads, []string{"cm", "a"}}, // the same
	}
	for _, tc := range tests {
		if got := withKinds(tc.args, tc.kinds); !slices.Equal(got, tc.want) {
			t.Errorf("withKinds(%q, %q) = %q, want %q", tc.args, tc.kinds, got, tc.want)
		}
	}
}

func TestServeControllersUnknown(t *testing.T) {
	for _, list := range []string{"nope", "configmap-generator,nope", "configmap-generator,"} {
		sc := serveControllers{Controllers: list, registry: builtin.NewRegistry(configmapgenerator.Builtin(), mirror.Builtin())}
		if _, err := sc.complete([]string{"cm"}); err == nil {
			t.Errorf("--controllers %q: no error", list)
		}
	}
	sc := serveControllers{Controllers: "mirror,configmap-generator,mirror", registry: builtin.NewRegistry(configmapgenerator.Builtin(), mirror.Builtin())}
	args, err := sc.complete(nil)
	if err != nil || len(sc.builtins) != 2 || !strings.Contains(args[0], "configmapgenerators.kubectl-reflect.io") || !strings.Contains(args[0], "secrets") {
		t.Errorf("--controllers %q: %q, %d built-ins, %v", sc.Controllers, args, len(sc.builtins), err)
	}
}
