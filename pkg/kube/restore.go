package kube

import (
	"encoding/json"
	"fmt"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Restore decodes an object recorded elsewhere (its JSON and its printer
// cells, as a LIST of the client's brings them; cells may be nil) as the
// client decodes the items of a LIST: in its shape, packed or pruned alike.
func (c *Client) Restore(raw, cells []byte) (*object.Object, error) {
	if !c.scope.Table {
		cells = nil // a client that asks for no Table holds no cells
	}
	return c.ep.Load().decoding.decoder.Decode(raw, cells, nil)
}

// Restorers returns n functions that each restore as Restore does, with a
// decoder of its own (which packs with a codec it learns), so that n
// goroutines restore a whole state at once: a decoder works under its
// mutex, one object at a time.
func (c *Client) Restorers(n int) []object.DecodeFunc {
	out := c.ep.Load().decoding.decoder.Forks(n)
	if !c.scope.Table {
		for i, f := range out {
			out[i] = func(raw, _ []byte) (*object.Object, error) { return f(raw, nil) } // no Table: no cells
		}
	}
	return out
}

// RestoreColumns gives the client Table columns recorded elsewhere (the
// JSON of a Table's columnDefinitions), until a Table answer brings the
// server's own: a watch resumed after a restart may bring none for long.
func (c *Client) RestoreColumns(defs []byte) error {
	if len(defs) == 0 || !c.scope.Table {
		return nil
	}
	var cols []object.Column
	if err := json.Unmarshal(defs, &cols); err != nil {
		return fmt.Errorf("decoding recorded table columns: %w", err)
	}
	c.setColumns(cols)
	return nil
}
