package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// decodeList reads a LIST answer as it arrives: a v1 List of any kind, or a
// Table whose rows carry the objects. Items are decoded one by one from a
// buffer that holds one item at a time, so a list of any length costs the
// objects it holds and no copy of the response; and decoding overlaps the
// server's encoding of the rest.
func decodeList(body io.Reader, d decoding) (watch.Page[*object.Object], []object.Column, error) {
	r := newReader(body)
	var page watch.Page[*object.Object]
	var cols []object.Column
	if _, err := r.expect("{"); err != nil {
		return page, nil, fmt.Errorf("the list is not a JSON object: %w", err)
	}
	if c, err := r.peek(); err == nil && c == '}' {
		return page, nil, nil
	}
	for {
		key, err := r.key()
		if err != nil {
			return page, nil, err
		}
		switch key {
		case "items":
			err = r.each(func(item []byte) error {
				obj, err := decodeItem(view(item), gjson.Result{}, d)
				page.Items = append(page.Items, obj)
				return err
			})
		case "rows":
			err = r.each(func(row []byte) error {
				raw, cells := rowParts(view(row))
				obj, err := decodeItem(raw.Raw, cells, d)
				page.Items = append(page.Items, obj)
				return err
			})
		case "metadata":
			err = r.member(func(v []byte) error {
				md := gjson.Parse(view(v))
				page.ResourceVersion = strings.Clone(md.Get("resourceVersion").String())
				page.Continue = strings.Clone(md.Get("continue").String())
				return nil
			})
		case "columnDefinitions":
			err = r.member(func(v []byte) (err error) {
				cols, err = decodeColumns(gjson.Parse(view(v)))
				return err
			})
		default:
			_, err = r.value()
		}
		if err != nil {
			return page, nil, fmt.Errorf("decoding list: %s: %w", key, err)
		}
		if c, err := r.expect(",}"); err != nil {
			return page, nil, fmt.Errorf("decoding list: %w", err)
		} else if c == '}' {
			return page, cols, nil
		}
	}
}

// rowParts reads a Table row's object and cells in one pass over it (two
// lookups would scan it twice).
func rowParts(row string) (obj, cells gjson.Result) {
	gjson.Parse(row).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "object":
			obj = v
		case "cells":
			cells = v
		}
		return true
	})
	return obj, cells
}

// key reads an object member's key and the colon after it.
func (r *reader) key() (string, error) {
	if c, err := r.peek(); err != nil || c != '"' {
		if err == nil {
			err = fmt.Errorf("malformed JSON: %q where a key was expected", c)
		}
		return "", fmt.Errorf("decoding list: %w", unexpectedEOF(err))
	}
	v, err := r.value()
	if err != nil {
		return "", fmt.Errorf("decoding list: %w", err)
	}
	key := string(v[1 : len(v)-1])
	if bytes.IndexByte(v, '\\') >= 0 {
		if err := json.Unmarshal(v, &key); err != nil {
			return "", fmt.Errorf("decoding list: %w", err)
		}
	}
	if _, err := r.expect(":"); err != nil {
		return "", fmt.Errorf("decoding list: %w", err)
	}
	return key, nil
}

// member reads the next value and hands it to fn.
func (r *reader) member(fn func([]byte) error) error {
	v, err := r.value()
	if err != nil {
		return err
	}
	return fn(v)
}

// each calls fn for each element of the array that comes next; null is
// empty, anything else an error.
func (r *reader) each(fn func([]byte) error) error {
	c, err := r.peek()
	if err != nil {
		return unexpectedEOF(err)
	}
	if c != '[' {
		v, err := r.value()
		if err != nil || string(v) == "null" {
			return err
		}
		return fmt.Errorf("expected a JSON array, got %.40q", v)
	}
	r.start++
	if c, err := r.peek(); err == nil && c == ']' {
		r.start++
		return nil
	}
	for {
		v, err := r.value()
		if err != nil {
			return err
		}
		if err := fn(v); err != nil {
			return err
		}
		if c, err := r.expect(",]"); err != nil || c == ']' {
			return err
		}
	}
}
