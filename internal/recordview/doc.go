// Package recordview prints what the record (pkg/history) holds of one
// object, as the verbs that read it show it. It exists so that the verbs
// (history, blame) and the timeline's detail view print a revision the
// same way, and so that internal/cmd keeps to wiring.
//
//   - history.go: History, an object's revisions as history prints them:
//     a table (REVISION, TIME, OPERATION, MANAGER), diffs, one revision's
//     object (YAML or JSON); ContextsTable, the table of several
//     contexts (CONTEXT first); RevisionDiff, one revision as history --diff
//     prints it (the timeline's Enter); When, a revision's time, or the
//     window a late-seen change happened in.
//   - blame.go, blame_json.go: Blame, an object's annotated YAML (who set
//     each value, and when) or a field's log, as text or JSON, of what
//     pkg/blame computes.
//
// It reads no store and resolves no kind: its callers hand it revisions.
package recordview
