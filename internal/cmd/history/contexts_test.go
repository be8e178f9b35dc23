package history

import "testing"

// TestValidateContexts: with several contexts, what names one cluster's
// history is refused, as one line.
func TestValidateContexts(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    HistoryOptions
		want string
	}{
		{name: "the list", o: HistoryOptions{}},
		{name: "diffs", o: HistoryOptions{Diff: true}},
		{name: "one revision", o: HistoryOptions{Revision: "48213"}, want: "--revision is a resourceVersion of one cluster: give one --context"},
		{name: "a history file", o: HistoryOptions{DB: "h.db"}, want: "--history-db is one context's history: give one --context"},
		{name: "a flag checked first", o: HistoryOptions{Revision: "x"}, want: `invalid --revision "x": want a resourceVersion (a number, from the REVISION column)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.contexts = []string{"east", "west"}
			got := ""
			if err := tt.o.Validate(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate = %q, want %q", got, tt.want)
			}
		})
	}
}
