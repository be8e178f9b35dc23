package kube

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-reflect/kubectl-reflect/internal/jsontest"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// The fuzz targets below run their seeds in every `go test`; `make fuzz`
// explores from them (go test -fuzz). Whatever bytes a server sends, the
// stream readers must not panic or loop, must return only valid JSON, and
// must read the same however the bytes are cut into reads.

// fuzzReaders cut a stream into reads as the unit tests do (chunkings:
// whole, a byte at a time, halves) and in reads of n bytes (the fuzzer's
// choice).
func fuzzReaders(data []byte, n uint8) map[string]func() io.Reader {
	s := string(data)
	out := map[string]func() io.Reader{"chunks": func() io.Reader { return &chunkReader{data: data, n: int(n)%64 + 1} }}
	for name, reader := range chunkings {
		out[name] = func() io.Reader { return reader(s) }
	}
	return out
}

// chunkReader reads at most n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// readFrames reads frames until an error, at most one per input byte (and
// one more): a reader that loops fails the test.
func readFrames(t *testing.T, r io.Reader, size int) (got []string, err error) {
	f := newFrames(r)
	for range size + 2 {
		frame, err := f.next()
		if err != nil {
			return got, err
		}
		if !json.Valid(frame) {
			t.Fatalf("frame %q is not valid JSON", frame)
		}
		got = append(got, string(frame))
	}
	t.Fatalf("more frames than bytes: %q", got)
	return nil, nil
}

// FuzzFrames: a watch stream splits into the same frames, each valid JSON,
// however it is read; a stream of objects and arrays splits into the values
// encoding/json reads from it.
func FuzzFrames(f *testing.F) {
	a, b := `{"type":"ADDED","object":{"s":"x\"}{\\"}}`, `{"type":"DELETED","object":[1,{"a":"\n"}]}`
	for _, s := range []string{
		a + "\n" + b + "\n", "\r\n" + a + "\r\n\n" + b, a + b, " " + a + " \t " + b + " ",
		"{\n  \"type\": \"ADDED\",\n  \"object\": {}\n}\n" + a, a + "\n" + b[:20], `{"a":}` + "\n",
		`"x"1 true[]`, `{"a":"\u00e9\\"}` + "\n", "[1,2]\n[3]", "{}}", "\"\\", "{\"a\":\"\xff\"}\n",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		want, err := readFrames(t, bytes.NewReader(data), len(data))
		wantEOF := err == io.EOF
		for name, reader := range fuzzReaders(data, n) {
			got, err := readFrames(t, reader(), len(data))
			if !reflect.DeepEqual(got, want) || (err == io.EOF) != wantEOF {
				t.Fatalf("read %s: %q (%v), read whole: %q (clean end %v)", name, got, err, want, wantEOF)
			}
		}
		if values, ok := jsonValues(data); ok && wantEOF && !reflect.DeepEqual(want, values) {
			t.Fatalf("frames %q, encoding/json reads %q", want, values)
		}
	})
}

// jsonValues are the values encoding/json reads from data, when it reads it
// whole as objects and arrays separated by whitespace.
func jsonValues(data []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []string
	for {
		var v json.RawMessage
		if err := dec.Decode(&v); err == io.EOF {
			return out, true
		} else if err != nil || (v[0] != '{' && v[0] != '[') {
			return nil, false
		}
		out = append(out, string(v))
	}
}

// FuzzDecodeList: a LIST answer decodes to the same page however it is
// read, and an answer that decodes is one encoding/json reads the same
// items from.
func FuzzDecodeList(f *testing.F) {
	cm := `{"metadata":{"name":"a","namespace":"ns","uid":"u","resourceVersion":"1"},"data":{"k":"v"}}`
	for _, s := range []string{
		`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"10","continue":"c"},"items":[` + cm + "," + cm + `]}`,
		" {\n \"items\" : [ " + cm + " ] ,\n\"metadata\":{\"resourceVersion\":\"11\"} , \"extra\":[{\"a\":[1,2,{}]},\"]\"]}\n",
		`{"it\u0065ms":[` + cm + `]}`, `{"items":null}`, `{}`, `[]`, `{"items" []}`, `{"items":[1]}`,
		`{"kind":"Table","columnDefinitions":[{"name":"Name","type":"string","format":"name","priority":0}],"rows":[{"cells":["a"],"object":` + cm + `}]}`,
		`{"rows":[{"cells":1}]}`, `{"columnDefinitions":{}}`, `{"metadata":[]}`,
	} {
		f.Add([]byte(s), uint8(5))
	}
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		decode := func(r io.Reader) (string, error) {
			page, cols, err := decodeList(r, decodingOf(configMaps, Scope{}))
			return describePage(t, page.Items, page.ResourceVersion, page.Continue, cols), err
		}
		want, err := decode(bytes.NewReader(data))
		wantErr := err != nil
		for name, reader := range fuzzReaders(data, n) {
			got, err := decode(reader())
			if (err != nil) != wantErr || err == nil && got != want {
				t.Fatalf("read %s: %s (%v); read whole: %s (error %v)", name, got, err, want, wantErr)
			}
		}
		if wantErr {
			return
		}
		var list struct {
			Items []json.RawMessage `json:"items"`
			Rows  []json.RawMessage `json:"rows"`
		}
		if err := json.NewDecoder(bytes.NewReader(data)).Decode(&list); err == nil && !jsontest.DuplicateKeys(data) {
			if got := strings.Count(want, "\n"); got != len(list.Items)+len(list.Rows) {
				t.Fatalf("%d items decoded, encoding/json reads %d items and %d rows", got, len(list.Items), len(list.Rows))
			}
		}
	})
}

// describePage renders what a page holds, one line per item, checking that
// each item's JSON is valid.
func describePage(t *testing.T, items []*object.Object, rv, cont string, cols []object.Column) string {
	var b strings.Builder
	for _, o := range items {
		if o == nil {
			b.WriteString("<nil>\n")
			continue
		}
		if !json.Valid(o.JSON()) {
			t.Fatalf("item %q is not valid JSON", o.JSON())
		}
		b.WriteString(o.Namespace + "/" + o.Name + "@" + o.ResourceVersion + " " + string(o.JSON()) + " " + string(o.Cells) + "\n")
	}
	colsJSON, err := json.Marshal(cols)
	if err != nil {
		t.Fatal(err)
	}
	return b.String() + "rv=" + rv + " continue=" + cont + " columns=" + string(colsJSON)
}
