package kube

import (
	"context"
	"fmt"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"net/http"
	"slices"
	"strconv"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubectl-reflect/kubectl-reflect/pkg/object"
	"github.com/kubectl-reflect/kubectl-reflect/pkg/watch"
)

// tableAccept asks for the server's Table (printer cells plus the object,
// or its metadata: Scope.MetadataOnly) and takes plain JSON from servers
// that cannot convert the resource.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// metadataAccept asks for the objects' metadata only (PartialObjectMetadata,
// in a PartialObjectMetadataList for a LIST: client-go's metadata client)
// and takes plain JSON from servers that cannot convert the resource.
const (
	metadataAccept     = "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io,application/json"
	metadataListAccept = "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json"
)

// NewRESTClient returns one client for every resource of a server. It
// speaks JSON and has no client-side rate limit: a watcher makes few
// requests, and a paged list must not wait for a token bucket. It ignores
// cfg.Timeout (kubectl's --request-timeout), which client-go makes the
// http.Client's and which would also cut every watch at that age; the
// caller bounds requests through their context instead (a watcher with
// watch.Options.RequestTimeout). LISTs ask for gzip unless
// cfg.DisableCompression says not to.
func NewRESTClient(cfg *rest.Config) (rest.Interface, error) {
	cfg = dynamic.ConfigFor(cfg)
	cfg.Timeout = 0
	// Only JSON: the decoding here reads JSON, whatever client-go's CBOR
	// feature gates say.
	cfg.AcceptContentTypes, cfg.ContentType = "application/json", "application/json"
	cfg.QPS, cfg.Burst = -1, 0
	OverHTTP1(cfg)
	if cfg.DisableCompression { // --disable-compression, or the kubeconfig's disable-compression
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return identityEncoding{rt} })
	}
	c, err := rest.UnversionedRESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating a REST client: %w", err)
	}
	return c, nil
}

// Scope is what a Client lists and watches of its resource: which objects
// (namespace, selectors, names) and, in its Shape, what of each.
type Scope struct {
	// Namespace limits a namespaced resource to one namespace; "" is all.
	Namespace     string
	LabelSelector string
	FieldSelector string
	// Names, when set, keeps only the objects of these names: the server
	// has a field selector for one name (metadata.name=...), not for
	// several, so the others are decoded and dropped here.
	Names []string
	// Shape is what to ask for and decode of each object read.
	Shape
}

// Shape is what a client asks the server for of each object and how it
// decodes it: the server's Table or the object, whole or its metadata,
// pruned, packed. Where a Scope says which objects, its Shape says what
// of them: two readers of one resource with one Scope but another Shape
// need two reflectors.
type Shape struct {
	// Table asks for the server's printer cells with every object.
	Table bool
	// MetadataOnly has the server send each object's metadata only, without
	// the spec, data or status it would encode and send: with Table, in
	// each row (includeObject=Metadata, what kubectl get asks for unless it
	// sorts: the name, labels and creationTimestamp a row of cells needs);
	// without, as a PartialObjectMetadataList (what `-o name` needs).
	// Objects are then PartialObjectMetadata, or whole from a server that
	// cannot convert the resource.
	MetadataOnly bool
	// Prune is applied to every object decoded.
	Prune object.Prune
	// Pack keeps objects' JSON compressed (object.DecoderOptions.Pack): for
	// stores that live long, not for a one-shot listing.
	Pack bool
	// PackLists packs the objects of LIST answers only, and keeps those of
	// watch events (live changes, and a streaming list's) as they came: a
	// command that holds whole objects holds them for its list, while its
	// live events are printed at once, where packing would cost CPU per
	// event. Pack packs both.
	PackLists bool
}

// NameFieldSelector is the field selector that keeps the object called name
// among those sel keeps (sel may be empty): the server's way to list or
// watch one object. The name is escaped (fields.EscapeValue): a name no
// object can have, such as "a,b", selects nothing rather than failing.
func NameFieldSelector(name, sel string) string {
	term := "metadata.name=" + fields.EscapeValue(name)
	if sel == "" {
		return term
	}
	return term + "," + sel
}

// Client lists and watches one resource. It implements
// watch.Client[*object.Object] and is safe for concurrent use.
type Client struct {
	rest       rest.Interface
	scope      Scope
	ep         atomic.Pointer[endpoint] // replaced when rediscovery finds another version
	names      map[string]bool          // Scope.Names; nil keeps every object
	columns    atomic.Pointer[[]object.Column]
	rediscover atomic.Pointer[Rediscover]
}

// endpoint is where and as what the client reads its resource: one served
// version of it.
type endpoint struct {
	resource Resource
	path     string
	decoding decoding
}

// Rediscover asks the server's discovery, afresh, which version of a
// resource it serves now; see Client.Rediscover.
type Rediscover func(ctx context.Context, r Resource) (Resource, error)

var _ watch.Client[*object.Object] = (*Client)(nil)

// NewClient returns a Client for resource within scope.
func NewClient(rc rest.Interface, resource Resource, scope Scope) *Client {
	c := &Client{rest: rc, scope: scope}
	c.ep.Store(&endpoint{
		resource: resource, path: resourcePath(resource, scope.Namespace),
		decoding: newDecoding(resource, scope.Shape, new(atomic.Pointer[object.Known])),
	})
	if len(scope.Names) > 0 {
		c.names = make(map[string]bool, len(scope.Names))
		for _, n := range scope.Names {
			c.names[n] = true
		}
	}
	return c
}

// keeps says whether obj is one the scope asks for.
func (c *Client) keeps(obj *object.Object) bool { return c.names == nil || c.names[obj.Name] }

// Reuse gives the client the objects a store already holds: an object
// listed or watched again at the same resourceVersion is returned as the
// stored one instead of being decoded again, so that a relist of unchanged
// objects allocates next to nothing. known is called from the goroutine that
// reads the client's pages and events.
func (c *Client) Reuse(known object.Known) { c.ep.Load().decoding.known.Store(&known) }

// Rediscover gives the client a way to find its resource again when the
// server answers 404 Not Found to a LIST or a WATCH: a custom resource whose
// definition was deleted and may come back serving another version. The
// client then reads the version rediscover returns from its next request
// on (the 404 is still returned: the watcher retries it after a backoff).
func (c *Client) Rediscover(rediscover Rediscover) { c.rediscover.Store(&rediscover) }

// Resource is the resource this client reads: the version rediscovered
// last, if any.
func (c *Client) Resource() Resource { return c.ep.Load().resource }

// notFound rediscovers the resource after ep answered 404, and moves the
// client to the version the server serves now if it is another one.
func (c *Client) notFound(ctx context.Context, ep *endpoint, err error) {
	rediscover := c.rediscover.Load()
	if rediscover == nil || !apierrors.IsNotFound(err) {
		return
	}
	r, rerr := (*rediscover)(ctx, ep.resource)
	if rerr != nil || r.GVR == ep.resource.GVR {
		return // not served (yet), or served as before: retrying will do
	}
	next := &endpoint{
		resource: r, path: resourcePath(r, c.scope.Namespace),
		decoding: newDecoding(r, c.scope.Shape, ep.decoding.known),
	}
	if c.ep.CompareAndSwap(ep, next) {
		c.columns.Store(nil) // another version may print other columns
	}
}

// Columns are the server's Table columns once a Table answer has been seen
// (nil before, or when Scope.Table is off or the server sent plain JSON).
func (c *Client) Columns() []object.Column {
	if p := c.columns.Load(); p != nil {
		return *p
	}
	return nil
}

func (c *Client) setColumns(cols []object.Column) {
	if len(cols) > 0 && c.columns.Load() == nil {
		c.columns.Store(&cols)
	}
}

func resourcePath(r Resource, namespace string) string {
	p := "/apis/" + r.GVR.Group + "/" + r.GVR.Version
	if r.GVR.Group == "" {
		p = "/api/" + r.GVR.Version
	}
	if r.Namespaced && namespace != "" {
		p += "/namespaces/" + namespace
	}
	return p + "/" + r.GVR.Resource
}

// request is a GET of ep with the scope's selectors and Accept; list says
// whether it is a LIST (not a WATCH).
func (c *Client) request(ep *endpoint, list bool) *rest.Request {
	req := c.rest.Get().AbsPath(ep.path)
	if c.scope.LabelSelector != "" {
		req.Param("labelSelector", c.scope.LabelSelector)
	}
	if c.scope.FieldSelector != "" {
		req.Param("fieldSelector", c.scope.FieldSelector)
	}
	return c.accept(req, list)
}

// accept asks req's answer in the form of the scope: a Table, metadata
// only (of a list, or of one object or event), or the objects.
func (c *Client) accept(req *rest.Request, list bool) *rest.Request {
	switch {
	case c.scope.Table:
		include := "Object"
		if c.scope.MetadataOnly {
			include = "Metadata"
		}
		req.SetHeader("Accept", tableAccept).Param("includeObject", include)
	case c.scope.MetadataOnly && list:
		req.SetHeader("Accept", metadataListAccept)
	case c.scope.MetadataOnly:
		req.SetHeader("Accept", metadataAccept)
	}
	return req
}

// List implements watch.Client.
func (c *Client) List(ctx context.Context, opts watch.ListRequest) (watch.Page[*object.Object], error) {
	ep := c.ep.Load()
	req := c.request(ep, true)
	if opts.Limit > 0 {
		req.Param("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		req.Param("continue", opts.Continue)
	}
	if opts.ResourceVersion != "" {
		req.Param("resourceVersion", opts.ResourceVersion)
	}
	// The body is decoded as it streams in (see decodeList), unzipped by
	// readAhead; errors come back as the server's Status.
	req.SetHeader("Accept-Encoding", acceptGzip)
	body, err := req.Stream(ctx)
	if err != nil {
		c.notFound(ctx, ep, err)
		return watch.Page[*object.Object]{}, fmt.Errorf("listing %s: %w", ep.resource, err)
	}
	ra := newReadAhead(body)
	defer ra.Close()
	page, cols, err := decodeList(ra, ep.decoding)
	if err != nil {
		return page, fmt.Errorf("listing %s: %w", ep.resource, err)
	}
	c.setColumns(cols)
	if c.names != nil {
		page.Items = slices.DeleteFunc(page.Items, func(obj *object.Object) bool { return !c.keeps(obj) })
	}
	return page, nil
}

// Watch implements watch.Client.
func (c *Client) Watch(ctx context.Context, opts watch.WatchRequest) (watch.Stream[*object.Object], error) {
	ep := c.ep.Load()
	req := c.request(ep, false).Param("watch", "1")
	if opts.ResourceVersion != "" {
		req.Param("resourceVersion", opts.ResourceVersion)
	}
	if opts.TimeoutSeconds > 0 {
		req.Param("timeoutSeconds", strconv.FormatInt(opts.TimeoutSeconds, 10))
	}
	if opts.AllowWatchBookmarks {
		req.Param("allowWatchBookmarks", "true")
	}
	if opts.SendInitialEvents {
		req.Param("sendInitialEvents", "true").Param("resourceVersionMatch", "NotOlderThan")
	}
	body, err := req.Stream(ctx)
	if err != nil {
		c.notFound(ctx, ep, err)
		return nil, fmt.Errorf("watching %s: %w", ep.resource, err)
	}
	return newStream(body, c, ep), nil
}
