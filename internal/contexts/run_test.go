package contexts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestGo: every context runs, one's failure leaves the others running,
// each context's stderr comes after its name, the errors come back in the
// Set's order, a failure is reported once and OnAllFailed is called only
// when every context failed.
func TestGo(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fail    map[string]error
		wantErr string // each context's Report, in order
		allFail bool
	}{
		{name: "none fails", wantErr: "a: warn\nb: warn\nc: warn\n"},
		{name: "one fails", fail: map[string]error{"b": errors.New("no route")},
			wantErr: "a: warn\nb: warn\nc: warn\nb: error: no route\n"},
		{name: "one reported itself", fail: map[string]error{"a": ErrReported},
			wantErr: "a: warn\nb: warn\nc: warn\n"},
		{name: "all fail", fail: map[string]error{"a": ErrReported, "b": ErrReported, "c": errors.New("gone")},
			wantErr: "a: warn\nb: warn\nc: warn\nc: error: gone\n", allFail: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var errOut bytes.Buffer
			set := New([]string{"a", "b", "c"}, &errOut)
			for i := range set.errOuts { // shorter prefixes for the table
				set.errOuts[i].prefix = []byte(set.names[i] + ": ")
			}
			allFailed := 0
			set.OnAllFailed = func() { allFailed++ }
			ran := make([]bool, 3)
			r := set.Go(context.Background(), func(_ context.Context, i int, name string) error {
				fmt.Fprint(set.ErrOut(i), "warn") // flushed when f returns
				ran[i] = true
				return tt.fail[name]
			})
			errs := r.Wait()
			for i, err := range errs {
				if !errors.Is(err, tt.fail[set.names[i]]) || (err == nil) != (tt.fail[set.names[i]] == nil) {
					t.Errorf("context %s: error %v, want %v", set.names[i], err, tt.fail[set.names[i]])
				}
				set.Report(i, err)
			}
			if got := errOut.String(); !sameLines(got, tt.wantErr) {
				t.Errorf("stderr %q, want the lines of %q", got, tt.wantErr)
			}
			if !ran[0] || !ran[1] || !ran[2] {
				t.Errorf("ran %v, want every context", ran)
			}
			if r.Failed() != (len(tt.fail) > 0) || (allFailed == 1) != tt.allFail || allFailed > 1 {
				t.Errorf("Failed %v, OnAllFailed called %d times; want failed %v, all %v", r.Failed(), allFailed, len(tt.fail) > 0, tt.allFail)
			}
		})
	}
}

// sameLines says whether got has want's lines: the warnings of contexts
// running at once come in any order, the reports after them in order.
func sameLines(got, want string) bool {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	if len(g) != len(w) {
		return false
	}
	seen := map[string]int{}
	for i := range g {
		if strings.HasSuffix(w[i], "warn\n") {
			seen[g[i]]++
			seen[w[i]]--
		} else if g[i] != w[i] {
			return false
		}
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestEach: the contexts run in order and the first failure stops them,
// naming its context.
func TestEach(t *testing.T) {
	var ran []string
	err := Each([]string{"a", "b", "c"}, func(_ int, name string) error {
		ran = append(ran, name)
		if name == "b" {
			return errors.New("unreachable")
		}
		return nil
	})
	if err == nil || err.Error() != "context b: unreachable" || strings.Join(ran, ",") != "a,b" {
		t.Errorf("Each = %v after %v, want context b: unreachable after a,b", err, ran)
	}
	if err := Each([]string{"a"}, func(int, string) error { return nil }); err != nil {
		t.Errorf("Each = %v, want nil", err)
	}
}
