package pkg_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/kubectl-reflect/kubectl-reflect"

// TestNoImportOfInternal: no package of pkg/ imports the module's
// internal/ (the command line and its helpers), so that the library builds
// without the binary's machinery; pkg/'s own internal packages
// (pkg/internal, pkg/history/internal) are part of the library. Tests may
// use internal/'s test servers: only what ships is checked.
func TestNoImportOfInternal(t *testing.T) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", module+"/pkg/...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/internal/") {
				t.Errorf("%s imports %s: pkg/ must not import internal/", p.ImportPath, imp)
			}
		}
	}
	if n < 10 {
		t.Fatalf("go list found %d packages under pkg/", n)
	}
}
