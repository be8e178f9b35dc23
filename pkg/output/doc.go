// Package output prints what kubectl-reflect reads: streams of APPLIED and
// DELETED events (watch) in kubectl's formats: a table with the server's
// printer columns, wide, NDJSON, YAML, name, jsonpath, custom-columns and
// go-template.
//
// Printers only read objects; they never talk to the API server or to a
// store. JSON output writes each object's JSON as it was received, without
// decoding it.
//
// New picks the printer for an -o value; Native says which it prints itself:
//
//   - "" and "wide" (table.go, layout.go, align.go): a streaming table,
//     EVENT, [NAMESPACE,] then the server's columns, then label columns (-L,
//     --show-labels), aligned like kubectl's tabwriter; AGE is recomputed
//     from creationTimestamp when rows are flushed. Several kinds in one
//     stream show as kind/name; each kind's header is printed once, before
//     its first row, and every later event is one line whatever its kind,
//     its EVENT, NAMESPACE and NAME columns aligned across kinds.
//   - "json" (json.go): NDJSON, {"type":"APPLIED","object":<raw>} per line.
//   - "yaml" (yaml.go): a document per event, "type:" then "object:".
//   - "name" (name.go): kind[.group]/name per line, with the event type after
//     it under Options.WatchEvents ("configmap/foo deleted").
//   - every other format (kubectl.go): kubectl's own printer, built by the
//     caller from kubectl's get print flags (jsonpath, jsonpath-as-json,
//     go-template, template, custom-columns, their -file forms, kyaml). It
//     gets the event's object, as with kubectl get -w, or with
//     Options.WatchEvents the event, {type, object}, as with kubectl's
//     --output-watch-events (kyaml always gets the event, as json and yaml).
//   - Options.Diff (diff.go): `watch --diff`, the first sighting as YAML and
//     every later APPLIED as a unified diff against Event.Old, noise
//     (resourceVersion, managedFields, generation) left out.
//
// For `get`, Table (list.go) builds the meta.k8s.io Table kubectl would have
// received from the server's columns and each object's cells, and List the
// v1 List of several objects, so that kubectl's own printers print them.
//
// Every printer buffers: output is written on Flush (or when the buffer
// fills), so callers flush whenever they have no more events at hand. The
// table lays out everything pending at Flush, so the rows of one flush align
// together. A printer is used by one goroutine.
package output
