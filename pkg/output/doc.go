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
//   - "" and "wide" (table.go, layout.go, align.go, shared.go): a streaming table,
//     EVENT, [NAMESPACE,] then the server's columns, then label columns (-L,
//     --show-labels), aligned like kubectl's tabwriter; AGE is recomputed
//     from creationTimestamp when rows are flushed. A stream of several
//     kinds (Options.SeveralKinds, or from the flush holding a second kind
//     on) is one table with one header whatever the kinds (shared.go):
//     EVENT, [NAMESPACE,] NAME as kind/name, AGE, the label columns, then
//     COLUMNS, the kind's other printer columns as Name=value pairs in the
//     server's order (all of them with wide), an empty cell as <none>; see
//     the example below.
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
//   - Options.Diff (diff.go): `watch --diff`, a new object (no Event.Old)
//     and a deletion as one line with the kind's columns as Name=value
//     pairs, every later APPLIED as a unified diff against Event.Old, noise
//     (resourceVersion, managedFields, generation) left out; DiffNew adds
//     new objects' YAML.
//
// Compare (compare.go) is `diff`: the same kind's objects in several states
// (moments of a history, clusters), paired by name (Pairs), each pair as a
// unified diff of YAML whose headers name the states, noise and ignored
// fields left out (object.Path), an object some states lack as one line.
//
// The table of several kinds reads at a glance, every line under the one
// header:
//
//	EVENT     NAME                             AGE     COLUMNS
//	APPLIED   configmap/settings               45s     Data=1
//	APPLIED   secret/token                     45s     Type=Opaque Data=1
//	APPLIED   deployment.apps/web              45s     Ready=0/1 Up-to-date=1 Available=0
//	DELETED   secret/token                     49s     Type=Opaque Data=1
//
// For `get`, Table (list.go) builds the meta.k8s.io Table kubectl would have
// received from the server's columns and each object's cells, and List the
// v1 List of several objects, so that kubectl's own printers print them;
// WriteList (liststream.go) prints that List as json or yaml byte for byte
// as kubectl's printers do, one object at a time.
//
// Every printer buffers: output is written on Flush (or when the buffer
// fills), so callers flush whenever they have no more events at hand. The
// table lays out everything pending at Flush, so the rows of one flush align
// together. A printer is used by one goroutine.
package output
