package kube

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFrames(t *testing.T) {
	a, b := `{"type":"ADDED","object":{"s":"x\"}{\\"}}`, `{"type":"DELETED","object":[1,{"a":"\n"}]}`
	big := `{"k":"` + strings.Repeat("v", 200<<10) + `"}`
	cases := []struct {
		name    string
		in      string
		want    []string
		wantErr string // "" means the stream ends with io.EOF
	}{
		{"lines", a + "\n" + b + "\n", []string{a, b}, ""},
		{"crlf and blank lines", "\r\n" + a + "\r\n\n" + b + "\r\n", []string{a, b}, ""},
		{"last without newline", a + "\n" + b, []string{a, b}, ""},
		{"back to back", a + b, []string{a, b}, ""},
		{"spaces between", " " + a + " \t " + b + " ", []string{a, b}, ""},
		{"pretty", "{\n  \"type\": \"ADDED\",\n  \"object\": {}\n}\n" + a, []string{"{\n  \"type\": \"ADDED\",\n  \"object\": {}\n}", a}, ""},
		{"larger than the buffer", big + "\n" + a + "\n", []string{big, a}, ""},
		{"empty", "", nil, ""},
		{"only whitespace", " \n\r\n", nil, ""},
		{"truncated", a + "\n" + b[:20], []string{a}, "stream ended inside an event: unexpected EOF"},
		{"malformed", `{"a":}` + "\n", nil, `malformed JSON: "{\"a\":}"`},
	}
	for _, c := range cases {
		for rname, reader := range chunkings {
			if rname == "one byte" && len(c.in) > 10000 {
				continue
			}
			t.Run(c.name+"/"+rname, func(t *testing.T) {
				f := newFrames(reader(c.in))
				var got []string
				var err error
				for range 10 {
					var frame []byte
					if frame, err = f.next(); err != nil {
						break
					}
					got = append(got, string(frame))
				}
				if strings.Join(got, "|") != strings.Join(c.want, "|") {
					t.Errorf("frames = %.100q, want %.100q", got, c.want)
				}
				switch {
				case c.wantErr == "" && err != io.EOF:
					t.Errorf("error = %v, want io.EOF", err)
				case c.wantErr != "" && (err == nil || err.Error() != c.wantErr):
					t.Errorf("error = %v, want %s", err, c.wantErr)
				}
			})
		}
	}
}

// chunkings cut a stream into reads in different ways.
var chunkings = map[string]func(string) io.Reader{
	"whole":    func(s string) io.Reader { return strings.NewReader(s) },
	"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
	"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
}

func TestFramesReadError(t *testing.T) {
	boom := errors.New("boom")
	f := newFrames(io.MultiReader(strings.NewReader("{\"a\":1}\n{\"b\""), iotest.ErrReader(boom)))
	if frame, err := f.next(); err != nil || string(frame) != `{"a":1}` {
		t.Fatalf("first frame = %q, %v", frame, err)
	}
	if _, err := f.next(); !errors.Is(err, boom) {
		t.Fatalf("error = %v, want %v", err, boom)
	}
}

func TestFramesTooLarge(t *testing.T) {
	f := newFrames(io.MultiReader(strings.NewReader(`{"k":"`), letters{}))
	if _, err := f.next(); !errors.Is(err, errValueTooLarge) {
		t.Fatalf("error = %v, want %v", err, errValueTooLarge)
	}
}

// letters is an endless stream of 'a'.
type letters struct{}

func (letters) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// TestStringEnd: a string's end is found past escapes, and a string cut
// short says where to resume, however it is cut.
func TestStringEnd(t *testing.T) {
	cases := []struct {
		in     string // a string's contents from after its opening quote
		end    int
		closed bool
	}{
		{`abc"`, 4, true},
		{`abc",`, 4, true},
		{`a\"b"`, 5, true},
		{`a\\"b"`, 4, true},
		{`\\\"`, 4, false},
		{`abc`, 3, false},
		{`abc\`, 3, false}, // the escaped byte has not arrived: resume at the backslash
		{`\u0022"`, 7, true},
		{`a\nb\nc"`, 8, true},  // escapes before the quote found first
		{`\n\"\n"x"`, 7, true}, // an escaped quote: the next one is looked for
		{`\n\"\n`, 6, false},   // none after it
		{`\n\"\n\`, 6, false},  // resume at the last backslash
		{``, 0, false},
	}
	for _, c := range cases {
		end, closed := stringEnd([]byte(c.in), 0)
		if end != c.end || closed != c.closed {
			t.Errorf("stringEnd(%q) = %d, %v, want %d, %v", c.in, end, closed, c.end, c.closed)
		}
	}
}
