package history

import "testing"

// TestHistoryValidateContexts: with several contexts, what names one cluster's
// history is refused, as one line.
func TestHistoryValidateContexts(t *testing.T) {
	for _, tt := range []struct {
		name string
		o    HistoryOptions
		args []string // default: cm/settings
		want string
	}{
		{name: "the list", o: HistoryOptions{}},
		{name: "diffs", o: HistoryOptions{Diff: true}},
		{name: "kind and name apart", args: []string{"cm", "settings"}},
		{name: "no name", args: []string{"cm"}, want: "history lists one object: give KIND/NAME (or KIND NAME)"},
		{name: "two names", args: []string{"cm", "a", "b"}, want: "history lists one object: give KIND/NAME (or KIND NAME)"},
		{name: "two objects", args: []string{"cm/a", "cm/b"}, want: "history lists one object: give KIND/NAME (or KIND NAME)"},
		{name: "a bad argument", args: []string{"cm/a/b"}, want: "arguments in resource/name form may not have more than one slash"},
		{name: "one revision", o: HistoryOptions{Revision: "48213"}, want: "--revision is a resourceVersion of one cluster: give one --context"},
		{name: "a history file", o: HistoryOptions{DB: "h.db"}, want: "--history-db is one context's history: give one --context"},
		{name: "a flag checked first", o: HistoryOptions{Revision: "x"}, want: `invalid --revision "x": want a resourceVersion (a number, from the REVISION column)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.contexts, tt.o.Args = []string{"east", "west"}, tt.args
			if tt.args == nil {
				tt.o.Args = []string{"cm/settings"}
			}
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
