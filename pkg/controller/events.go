package controller

import (
	"context"
	"sync"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
)

// flushTimeout bounds how long a recorder's stop waits for the event
// writes in flight.
const flushTimeout = 5 * time.Second

// NewRecorder returns an events.k8s.io/v1 event recorder of client-go's
// events broadcaster (which aggregates repeated events into series) for
// the controller called name: reportingController "kubectl-reflect/"+name,
// reportingInstance that and the hostname, as the broadcaster makes it.
// Objects of kinds outside client-go's scheme (a CRD's) must carry their
// apiVersion and kind. Events are written in the background; the returned
// stop shuts the broadcaster down (every event emitted before is handed to
// a writer), waits up to a few seconds for the writes in flight, then
// cancels the rest and ends the broadcaster's goroutines. It must be
// called, once. Flushing is best effort: a write the broadcaster has not
// started when stop waits is cancelled.
func NewRecorder(ctx context.Context, kube kubernetes.Interface, name string) (events.EventRecorder, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sink := &trackingSink{EventSink: &events.EventSinkImpl{Interface: kube.EventsV1()}, idle: make(chan struct{})}
	close(sink.idle)
	b := events.NewBroadcaster(sink)
	if err := b.StartRecordingToSinkWithContext(ctx); err != nil { // only on a shut down broadcaster
		klog.FromContext(ctx).Error(err, "Events will not be recorded", "controller", name)
	}
	stop := func() {
		b.Shutdown() // hands every event emitted so far to the sink's writers
		select {
		case <-sink.waitIdle():
		case <-time.After(flushTimeout):
		}
		cancel()
	}
	return b.NewRecorder(scheme.Scheme, "kubectl-reflect/"+name), stop
}

// trackingSink knows when no write is in flight.
type trackingSink struct {
	events.EventSink

	mu       sync.Mutex
	inFlight int
	idle     chan struct{} // closed while inFlight is 0
}

func (s *trackingSink) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == 0 {
		s.idle = make(chan struct{})
	}
	s.inFlight++
}

func (s *trackingSink) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight--
	if s.inFlight == 0 {
		close(s.idle)
	}
}

func (s *trackingSink) waitIdle() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.idle
}

func (s *trackingSink) Create(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.begin()
	defer s.end()
	return s.EventSink.Create(ctx, e)
}

func (s *trackingSink) Update(ctx context.Context, e *eventsv1.Event) (*eventsv1.Event, error) {
	s.begin()
	defer s.end()
	return s.EventSink.Update(ctx, e)
}

func (s *trackingSink) Patch(ctx context.Context, e *eventsv1.Event, data []byte) (*eventsv1.Event, error) {
	s.begin()
	defer s.end()
	return s.EventSink.Patch(ctx, e, data)
}
