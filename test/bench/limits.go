//go:build linux

package main

// whatLimitsUs is the report's "what limits us" cell of each row, keyed by
// row.key: what is known (from profiles and the packages' docs) to bound
// kubectl-reflect's figure, written by hand. It says nothing about whether
// a target is met: the figures do. Keep it true when the code changes.
var whatLimitsUs = map[string]string{
	"setup.create": "Setup, not a comparison: the API server's write path (etcd) bounds it.",

	"watch.time": "The API server's JSON encoding of one LIST, read item by item as it arrives, then each object decoded and printed " +
		"as JSON again. We read JSON, not protobuf (issue 11's first lever, not built).",
	"watch.time.streaming": "A streaming list is sent as watch events from the watch cache: more work on the server than one LIST over JSON.",
	"watch.time.paged":     "Pages of 500 are one round trip each.",
	"watch.time.throttled": "Against kubectl as a user runs it: most of its time is its client-side rate limit spacing its pages of 500 (see the get part's throttled row).",
	"watch.time.managed":   "managedFields kept: more bytes decoded and printed, as kubectl prints them.",
	"watch.time.name":      "Process start and the LIST of metadata only (a PartialObjectMetadataList; kubectl lists whole objects); printing a name is cheap on both sides.",
	"watch.rss": "The binary's resident pages (it links kubectl's libraries; package init touches about 35 MiB) and the store, " +
		"which keeps every listed object's pruned JSON, packed (kube.Shape.PackLists), for the watch that follows, " +
		"with the GC's headroom (GOGC=50).",
	"watch.rss.now":   "As the peak row, less the buffers of decoding.",
	"live.cpu.pruned": "As the row above, with managedFields pruned from what is decoded, kept and printed.",
	"live.cpu": "Each event is read as JSON, decoded into the store's object and encoded as JSON again; at this rate the " +
		"wakeups and syscalls per event (network read, store, printer) are most of it. Watches speak HTTP/1.1: no handoff " +
		"from an HTTP/2 read loop and no WINDOW_UPDATE writes (the row below).",
	"live.cpu.http2": "HTTP/2 hands every DATA frame from the connection's read loop to the stream's reader (a goroutine " +
		"wakeup) and writes a WINDOW_UPDATE every 4 KiB read; HTTP/1.1 reads the watch's own connection.",
	"live.rss": "The binary's resident pages (about 35 MiB touched by package init) and the store.",

	"get.all": "Process start (package init of kubectl's libraries: about half of it is k8s.io/kubectl/pkg/cmd/get's help and i18n), " +
		"then the API server's Table LIST (cells and metadata only: includeObject=Metadata, as kubectl asks) and kubectl's table printer.",
	"get.all.throttled": "Against kubectl as a user runs it, most of whose time is its client-side rate limit, which spaces its pages of 500 " +
		"200 ms apart after the first ten (client-go's default of 5 requests a second, which kubectl keeps for all but discovery: " +
		"\"Waited before sending request ... client-side throttling\" at -v=6); the row above is kubectl without it.",
	"get.all.streaming": "As `watch`'s streaming row: more work on the server than one LIST.",
	"get.all.paged":     "Pages of 500 are one round trip each.",
	"get.all.rss":       "The binary's resident pages (about 35 MiB touched by package init) and each object's cells and metadata, held for the table.",
	"get.json":          "One JSON List document is printed, as kubectl does: see the peak RSS row.",
	"get.json.rss": "Items are printed one at a time (output.WriteList), but from the store once it has synced: each object's " +
		"pruned JSON, packed (about 22 MB at 20,000), and the GC's headroom (GOGC=50). Printing straight from the LIST without a store is not built.",

	"sync": "Mostly the LIST itself (the floor rows below): the server's JSON encoding and gzip, the transfer and the inflate, " +
		"which any cache that reads JSON pays: the JSON LIST alone, read and discarded, is itself about 0.6x of the typed " +
		"informer's sync. Our inflate (about a fifth of our CPU, by pprof) and decoding (pruning and packing, about half) overlap " +
		"with the transfer, on two cores shared with the API server. Over HTTP/1.1 the body is read from the connection itself, not " +
		"handed over by HTTP/2's read loop in frames. The typed informer reads protobuf over HTTP/2: the server encodes protobuf faster than JSON.",
	"sync.floor": "The LIST alone as we read it (JSON over HTTP/1.1), with nothing decoded: most of our sync time. The server's " +
		"JSON encoding and gzip and the client's inflate bound it. Asking for no gzip would halve it on loopback (measured by hand), " +
		"but would cost users who reach a remote cluster through a local tunnel; we ask for gzip as kubectl does.",
	"sync.floor.protobuf": "The typed informer's wire format and transport (protobuf over HTTP/2), read and discarded: the server " +
		"encodes protobuf faster than JSON, the bytes are about 15% fewer; decoding protobuf into the store's object is not built.",
	"sync.http2": "The same store over HTTP/2: the transfer of a list this size costs more over it (the floor row below), " +
		"its body handed from the connection's read loop to the reader frame by frame, with flow-control updates written back.",
	"sync.floor.http2": "The LIST alone over each transport, nothing decoded, both inflated with Go's gzip on the reader " +
		"(ours inflates with klauspost/compress on a goroutine of its own: hence our store over HTTP/2 beats this floor).",
	"sync.crd.floor": "As the ConfigMaps' floor row: the server's listing of custom resources (unstructured, JSON only) bounds any cache of them.",
	"sync.stripped":  "As the first row; the transform costs the informer little.",
	"sync.json":      "The same wire format, but a streaming list is a watch event per object (the row with the streaming list off is our protocol path): decoding into Go structs, not our pruned, packed object.",
	"sync.dynamic":   "Both read JSON; the dynamic informer builds a map per object.",
	"sync.cpu":       "JSON decoding, pruning and packing (s2 with a learnt dictionary) of each object against protobuf decoding.",
	"sync.cpu.json":  "Pruning and packing each object is work the informer does not do.",
	"sync.crd": "Both read JSON from the same server, whose listing of custom resources (unstructured) bounds both; " +
		"ours decodes no map per object. Not profiled for this row.",
	"heap": "Each object's pruned JSON, packed (s2 with a dictionary and Huffman table learnt from the first objects). " +
		"The 1 KiB payload is random letters of a 62-letter alphabet: its entropy alone is about 762 B per object, " +
		"close to what 0.35x of the typed informer allows.",
	"heap.stripped":    "As the first heap row.",
	"heap.dynamic":     "As the first heap row; the dynamic informer holds a map per object.",
	"heap.crd":         "As the first heap row: the same payload, whose entropy (about 762 B) bounds any lossless store.",
	"heap.crd.dynamic": "As the first heap row; the dynamic informer holds a map per object.",

	// The typed informers with the streaming list off (informer_typed.go).
	"sync.list": "As the first row, with the informer's cache filled by a LIST (protobuf; the reflector decodes the list whole, then " +
		"fills its store) rather than a streaming list; ours is one JSON LIST decoded item by item as it arrives.",
	"sync.json.list": "Like for like on the wire: both send one JSON LIST (gzip) and then a WATCH; ours over HTTP/1.1, the informer over " +
		"HTTP/2. What differs is decoding into our pruned, packed object, item by item as the body arrives, rather than the whole " +
		"list into Go structs, then the store.",
	"sync.cpu.list": "As the first CPU row: JSON decoding, pruning and packing against protobuf decoding.",
	"sync.streaming": "Like for like on the wire the other way: both fill their cache by a streaming list over JSON, a watch event per " +
		"object sent from the API server's watch cache; ours over HTTP/1.1, the informer over HTTP/2. Each event is decoded into our " +
		"pruned, packed object rather than a Go struct; the server's work per event is the same on both sides and more than one LIST's (the watch rows).",
	"sync.cpu.streaming": "As the JSON CPU rows: the same wire format and list protocol; pruning and packing each object is work the informer does not do.",
	"heap.list":          "As the first heap row; the informer's cache filled by a LIST rather than a streaming list.",
	"sync.cpu.json.list": "As the JSON CPU row: the same wire format; pruning and packing each object is work the informer does not do.",

	"relist.peak": "The new list is decoded while the store still holds the old objects (unchanged ones are reused, not decoded again); " +
		"between collections the Go heap grows by up to GOGC percent of the live heap, so the peak depends on when the GC runs.",
	"relist.live":  "The store and the objects of the list being read that changed.",
	"relist.after": "1.00x when the relist keeps nothing.",
	"relist.time":  "The API server's LIST over JSON; unchanged objects are not decoded again.",

	"controller.time": "Both make the same two server-side applies per generator: the API server's write path bounds both.",
	"controller.cpu": "Per generator: three watch events decoded and packed, two or three reconciles (the first decodes the generator's JSON " +
		"with encoding/json; a ConfigMap as our last apply made it is settled by its resourceVersion, not decoded; the reconcile " +
		"our own status write triggers finds both objects where the last one left them and decodes nothing), " +
		"one ConfigMap apply (protobuf answer) and one status apply (the answer not decoded), over HTTP/1.1 and TLS. " +
		"controller-runtime reads typed objects from protobuf, decodes every answer and extracts the managed fields on every reconcile.",
	"controller.cpu.http2": "Over HTTP/2 every request also encodes and decodes its headers with HPACK, and every answer and watch " +
		"event passes from the connection's read loop to its reader and costs flow-control writes.",
	"controller.rss": "The binary's resident pages: it links kubectl's libraries and package init touches about 35 MiB " +
		"(the anonymous RSS row is what grows with the objects).",
	"controller.anon": "The generated ConfigMaps and the generators (without managedFields), packed; every other ConfigMap as " +
		"its metadata only (whether it exists and who controls it is all a reconcile reads of it).",
	"controller.time.defaults": "As the row above; controller-runtime at its defaults also decodes and caches every ConfigMap whole.",
	"controller.cpu.defaults":  "As the row above; at its defaults controller-runtime decodes every ConfigMap whole (protobuf) into its typed cache.",
	"controller.rss.defaults":  "As the row above; at its defaults controller-runtime holds every ConfigMap typed with its managedFields.",
	"controller.anon.defaults": "As the row above; at its defaults controller-runtime holds every ConfigMap typed with its managedFields.",
	"controller.p50":           "One watch event, one reconcile and one apply through the API server, on a machine shared with other work.",
	"controller.p99":           "As p50; the tail is the API server's and the machine's: both controllers see it.",

	"serve.get":           "Process start (package init of kubectl's libraries) and the table printer; the daemon answers from memory.",
	"serve.get.throttled": "Against kubectl as a user runs it at the API server: most of its time is its client-side rate limit spacing its pages of 500.",
	"serve.get.kubectl":   "kubectl's client-side rate limit between its pages of 500, as at the API server (see the get part); the daemon answers each page from its store.",
	"serve.watches":       "One WATCH per kind for the daemon, whatever the number of clients.",
	"serve.lag.p50":       "The API server's write (etcd) on both sides, then one more hop (the daemon) and the machine's load.",
	"serve.lag.p99":       "The API server's write on both sides, one more hop (the daemon) and the machine's load; a slow client has its watch closed rather than holding others back.",
	"serve.rss": "The daemon's store, and a store of its own in each `kubectl reflect watch` (for a table, each object's cells and " +
		"metadata: about 80 MiB of RSS at 20,000 objects, 35 of them the binary's pages): through the daemon, our watch still keeps " +
		"every object it shows to report deletions after a relist. Plain kubectl through the daemon costs what it costs at the API server.",
	"serve.hwm": "As the RSS row, at its peak.",

	"scale.time": "As the in-process sync rows: JSON against protobuf.",
	"scale.cpu":  "As the in-process CPU rows: JSON decoding, pruning and packing against protobuf decoding.",
	"scale.heap": "As the heap rows: each object's pruned JSON, packed.",
	"scale.rss":  "The heap and what the Go runtime keeps mapped besides (spans, the GC's metadata).",
	"scale.peak": "The store, the item being decoded and the garbage between collections (GOGC=100 lets the heap grow past the live heap).",
	"scale.linear.time": "Wall time includes the API server's work (on the same machine) and the machine's load: compare the " +
		"typed informer's step in the table below, and the CPU slope, which is our process alone. The store is a map and an index.",
	"scale.linear.cpu":  "As the time slope, but CPU is less disturbed by other work on the machine than wall time: the better test of linearity.",
	"scale.linear.heap": "A packed object's size does not depend on how many there are; map growth doubles in steps.",
	"scale.linear.rss":  "As heap, plus the runtime's own steps (arenas are mapped 64 MiB at a time).",
	"scale.linear.peak": "As RSS held, plus when the GC runs during the sync.",

	"contexts.get": "The three contexts are read at once, each its own discovery, LIST and table, but on this 2-core machine the three " +
		"API servers (and their etcd) answer on the same two cores as the command: three LISTs' worth of server and client CPU " +
		"(the CPU row below: about twice one context's in our process) cannot take the wall time of one. The target assumes clusters " +
		"that answer in parallel, as remote ones do.",
	"contexts.get.cpu":            "Process start and discovery once rather than three times; the rest (each context's LIST decoded, its rows printed) is the same work.",
	"contexts.get.loop":           "kubectl pays its process start, discovery and one LIST once per context, one after the other.",
	"contexts.get.loop.throttled": "kubectl pays its process start, discovery and paged LISTs (client-side rate limited) once per context, one after the other.",
	"contexts.serve.get":          "Process start, then each context's daemon answers its Table LIST from memory; the three are asked at once.",
	"contexts.serve.merged":       "The merged view asks each context's daemon over loopback TLS and joins the Tables; kubectl's own start and printing dominate.",
	"contexts.watches":            "One reflector per kind per context in the daemon, shared by every client.",
	"contexts.watch.cpu": "Each context's events are read, decoded and printed as with one; the shared printer adds the " +
		"CONTEXT member and a wakeup per context's subscription.",

	"history.record.cpu": "The stop's checkpoint of the whole state (one per round's changes here; one per ten minutes in a running daemon, so fewer per change when changes come faster than these rounds make them). Each change is also encoded (its JSON, a delta of the revision before in s2's format, by a matcher " +
		"of our own) and inserted in SQLite, in statements of a power of two rows up to 64 (seven inserts, each prepared once " +
		"for all transactions), in one transaction per 100 ms of changes, its statement journal in memory. The recorder " +
		"sleeps out those 100 ms rather than wake for each change. The daemon keeps a sum of each object's latest revision " +
		"and encodes against its store's object when they agree; the sums outlive a clean restart, so no chain is read back. " +
		"The recorder unpacks the object and the one before it out of the store's packed form into one buffer reused from " +
		"batch to batch (the store keeps none of it), reads the managedFields in place, and the delta looks for the next run " +
		"at the last one's alignment before it indexes the revision before (an edit that keeps the length never does). " +
		"What remains per revision: those two unpackings (mostly Huffman decoding, 1.5 us each), the managedFields compared " +
		"(1.3 us), and most of all the row's insert (SQLite in pure Go) and the commit's page writes. The rounds spread by " +
		"about 10% (see the samples).",
	"history.at": "The process start, then the state read from the checkpoint nearest to the resourceVersion a part at a time (the " +
		"daemon's first one is written once 10,000 revisions are recorded), each object's cells computed as of then where the " +
		"part's buffer holds it, on every core (a plain table keeps of an object its name and cells, not its JSON), the rows " +
		"built on every core and printed by kubectl's table printer.",
	"history.at.live": "The live get decodes the daemon's Table (every row with its object's metadata) before it prints; --at " +
		"reads the file and keeps only what the table prints.",
	"history.warm": "Both start a process and read discovery; the warm one then reads the checkpoint its last stop wrote a part at a " +
		"time, beside the file's quick_check, each part decoded and its objects packed as a list's are, on every core, into buffers " +
		"reused from part to part (memory first touched costs about 3 ms per MB on this VM); the fresh list's decoding overlaps the " +
		"API server's encoding. The warm one then resumes its watch and applies the changes made while it was down, which the fresh list has in it.",
	"history.blame": "The process start and discovery (to resolve the kind), then the revisions of that one object read by its key " +
		"(the rest of the record is not read: the rows by the record's size below), a tree of each value's origin updated revision by " +
		"revision, and the YAML printed.",
	"history.blame.field": "As history.blame, the field looked up in each revision instead of a tree built.",
	"history.blame.10k": "As history.blame: the object's revisions are read by its key (the revisions table's key starts with the object), " +
		"so the rest of the record is not read; the file is opened read-only (its header checked, nothing else read first).",
	"history.blame.10k.field": "As history.blame.10k, the field looked up in each revision instead of a tree built.",
	"history.blame.1m":        "As history.blame.10k: a hundred times the record, the same revisions read (a few more B-tree pages to reach them).",
	"history.blame.1m.field":  "As history.blame.1m, the field looked up in each revision instead of a tree built.",
	"history.timeline": "The process start and discovery (to resolve the kinds), then every mark of the span read from the record's " +
		"columns alone (history.MarkReader.EachMark: no object decoded but the Warning Events, the few the class column marks), " +
		"all of the lanes built in memory (Build), then scaled to the 120 columns and printed.",
	"history.timeline.rss": "The timeline held whole (a lane per object, a mark per revision in the span) beside the process's " +
		"runtime and SQLite's page cache; the pages of the history it reads count in the resident set too.",
	"history.timeline.html": "As history.timeline, then the HTML file written: the marks first, then every revision of each lane " +
		"(the objects the plain text never reads, each decoded and its noise left out), streamed through gzip and base64 into the page.",
	"history.timeline.html.rss": "The marks of every lane and one lane's revisions at a time (the page's chunks are streamed through gzip), " +
		"beside the process's runtime and SQLite's page cache.",
	"history.size": "Each revision is a delta of the one before (s2, the revision before as its dictionary), a keyframe every 32; a row holds its key, times and manager; " +
		"the B-tree's pages fill part-way. The stop's checkpoint of the whole kind (every ten minutes in a running daemon) is not counted.",
	"history.size.file": "The files grow by whole pages and keep the pages they free; while the daemon runs, the WAL holds the edits' pages until " +
		"SQLite writes them back (every 1,000 pages), so the WAL's size moves the figure.",

	"realistic.bytes": "What the history writes per revision: a delta of the revision before (s2), a keyframe every 32, its printer cells, " +
		"names and numbers; pods' and ReplicaSets' status changes during rollouts are most of the revisions, Leases' renewals are coalesced (one kept every 5 minutes).",
	"realistic.bytes.total": "As the rows above, summed: the rollouts' pod, ReplicaSet and Event revisions, beside the nodes' Lease renewals.",
	"realistic.rss": "One process with six reflectors' stores (each object's pruned JSON, packed), the history's SQLite page cache and write batches, " +
		"against six kubectl processes that keep nothing but print each event (each with its binary's resident pages).",
	"realistic.cpu": "Each event decoded into a store, then its revision delta-encoded and written to SQLite in batches (the record), " +
		"against kubectl decoding each event and printing it indented JSON.",
	"realistic.idle": "Leases' renewals coalesced (one kept each 5 minutes per Lease), the nodes' status heartbeats every 10 to 20 minutes, " +
		"Events as they come; a window shorter than 5 minutes over- or undercounts the kept renewals.",
}
