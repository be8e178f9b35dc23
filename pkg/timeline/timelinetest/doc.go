// Package timelinetest writes a recorded history of a realistic cluster
// for the tests and benchmarks of timelines: pods created, scheduled,
// starting, running, terminating and deleted (objects.go: the API
// server's JSON, kwok's shapes and sizes), node Leases renewed, and
// kubelet's Events, some of them Warnings seen again and again (gen.go
// schedules them, write.go writes them in batches as a recorder does).
package timelinetest
