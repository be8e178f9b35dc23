// Package htmlpage writes a timeline (pkg/timeline) as one self-contained
// HTML file: what `kubectl reflect timeline --html FILE` writes, to open
// without a server and attach to an incident document. Nothing on the
// page loads anything: its script, style and data are inline, and its
// Content-Security-Policy forbids every request.
//
// # Files
//
//   - write.go: Write writes the page: the head (page.html's "head",
//     with page.css), the data in chunks, then the tail (yamldiff.js and
//     page.js). It reads the marks first (timeline.Build reads no
//     object), then each lane's revisions, one query at a time: one
//     connection to a history, so SQLite maps its file once.
//   - chunk.go: the data, in chunks of lanes, each lane's revisions
//     streamed through gzip as they are read (memory holds the marks and
//     one lane's revisions, never every object): a chunk's
//     lanes with their marks, and apart from them, read only when a mark
//     is clicked, the revisions of those lanes (their objects' JSON, the
//     noise history --diff leaves out left out). Both are gzip'ed JSON in
//     base64, which the page decodes with DecompressionStream.
//   - yamldiff.js (embedded): an object's YAML and the unified diff of
//     two, as history --diff writes them (go-yaml v2's layout, go-difflib's
//     hunks).
//   - page.html, page.css, page.js (embedded): the page. It groups lanes
//     by context, kind and namespace, draws a density row, a time axis in
//     UTC and a lane per object (virtualised: only the rows in view are
//     in the DOM), zooms with the wheel over the axis or with buttons,
//     filters by name, and on a click on a mark shows that revision's
//     unified diff of YAML against the one before and the object's state
//     then, computed in the browser from the embedded JSON.
//
// It knows the timeline and history models, not the command line.
package htmlpage
