// Package blametest writes a recorded history for the benchmarks of
// blame (pkg/blame's BenchmarkBlame and make bench's blame rows): many
// Deployments of about 1.5 KiB, each edited PerObject times, one revision
// of each in turn so that one object's revisions are spread over the
// whole file, as a recorder writes them. Each revision scales the
// Deployment (kubectl, through the scale subresource), changes its image
// (kubectl-edit) or writes its status (kube-controller-manager), in turn,
// with the managedFields each of those writes leaves.
//
//   - record.go: Record, a SQLite history of a number of revisions; Name,
//     the name of a Deployment in it; what a benchmark blames.
//   - deployment.go: a Deployment's JSON at each step.
//
// It is not a fixture of any test that checks behaviour: pkg/blame's
// tests record what they check through pkg/history themselves.
package blametest
