//go:build linux

package main

import "testing"

func TestCounterFraming(t *testing.T) {
	tests := []struct {
		name    string
		framing framing
		writes  []string
		want    int
	}{
		{"ndjson", ndjson, []string{"{\"a\":1}\n{\"a\"", ":2}\n{"}, 2},
		{"compact events", jsonValues, []string{"{\"type\":\"MODIFIED\",\"object\":{}}\n", "{\"type\":\"ADDED\",\"obj", "ect\":{}}\n"}, 2},
		{"indented", jsonValues, []string{"{\n    \"items\": [\n        {\n", "        }\n    ]\n}", "\n{\n    \"a\": {}\n}\n"}, 2},
		{"unfinished", jsonValues, []string{"{\"a\":1}"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCounter(tt.framing)
			for _, w := range tt.writes {
				if _, err := c.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := c.counts(); got != tt.want {
				t.Errorf("records = %d, want %d", got, tt.want)
			}
		})
	}
}
