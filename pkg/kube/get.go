package kube

import (
	"context"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
)

// Get reads the object called name, or its subresource (status, scale)
// unless subresource is "", as List reads the objects of the client's
// scope: a Table of one row (whose columns Columns returns
// afterwards), its metadata, or the object, pruned. It is not a reflector's
// request: `get` uses it where no store answers, as kubectl get reads
// named objects: for a user allowed to read objects by name but not to
// list them, and for subresources. The scope's selectors and Names do not
// apply to it. Errors are the server's
// Status (NotFound when there is no such object), wrapped.
func (c *Client) Get(ctx context.Context, name, subresource string) (*object.Object, error) {
	ep := c.ep.Load()
	res := c.accept(c.rest.Get().AbsPath(ep.path, name, subresource), false).Do(ctx)
	body, err := res.Raw()
	if err != nil {
		err = res.Error() // the server's Status, which Raw does not read
		return nil, fmt.Errorf("getting %s %q: %w", ep.resource, name, err)
	}
	if !c.scope.Table {
		obj, err := decodeItem(view(body), gjson.Result{}, ep.decoding)
		if err != nil {
			return nil, fmt.Errorf("getting %s %q: %w", ep.resource, name, err)
		}
		return obj, nil
	}
	page, cols, err := decodePage(body, ep.decoding)
	if err == nil && len(page.Items) != 1 {
		err = fmt.Errorf("a Table of %d rows for one object", len(page.Items))
	}
	if err != nil {
		return nil, fmt.Errorf("getting %s %q: %w", ep.resource, name, err)
	}
	c.setColumns(cols)
	return page.Items[0], nil
}
