// Package jsontest holds what the fuzz tests of the packages that read JSON
// by hand (pkg/object, pkg/kube) share to compare their readings with
// encoding/json's. It is imported by tests only.
package jsontest

import (
	"bytes"
	"encoding/json"
)

// DuplicateKeys says whether an object in data, at any depth, repeats a key
// (once unescaped). encoding/json keeps the last of them, gjson and the
// stream readers built on it the first, so a comparison of both holds only
// without duplicates. Data that is not JSON has none.
func DuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		keys      map[string]bool // nil for an array
		expectKey bool
	}
	var stack []*frame
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].expectKey = true
		}
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if n := len(stack); n > 0 && stack[n-1].expectKey {
			top := stack[n-1]
			if tok == json.Delim('}') {
				stack = stack[:n-1]
				valueDone()
				continue
			}
			key, _ := tok.(string)
			if top.keys[key] {
				return true
			}
			top.keys[key], top.expectKey = true, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{keys: map[string]bool{}, expectKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			valueDone()
		default:
			valueDone()
		}
	}
}
