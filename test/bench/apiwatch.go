//go:build linux

package main

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// serverWatch is the benchmark's own watch of its namespace's ConfigMaps at
// the API server: the time each tracked name's first change reached it is
// when the API server delivered that change, the start of an event's lag.
type serverWatch struct {
	w    watch.Interface
	done chan struct{} // closed once the watch ended

	mu      sync.Mutex
	seen    map[string]time.Time
	want    int
	reached chan struct{} // closed once want names were seen
}

// watchAtServer opens the watch at the API server's current
// resourceVersion, so that it sees changes only, and notes the first
// change of each name track accepts until want of them were seen.
func watchAtServer(ctx context.Context, e *env, track func(name string) bool, want int) (*serverWatch, error) {
	cms := e.clients.cs.CoreV1().ConfigMaps(e.namespace)
	list, err := cms.List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("watch at the API server: %w", err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return nil, fmt.Errorf("watch at the API server: %w", err)
	}
	s := &serverWatch{w: w, done: make(chan struct{}), seen: map[string]time.Time{}, want: want, reached: make(chan struct{})}
	go s.read(track)
	return s, nil
}

func (s *serverWatch) read(track func(name string) bool) {
	defer close(s.done)
	for ev := range s.w.ResultChan() {
		now := time.Now()
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok || !track(cm.Name) {
			continue
		}
		s.mu.Lock()
		if _, ok := s.seen[cm.Name]; !ok {
			s.seen[cm.Name] = now
			if len(s.seen) == s.want {
				close(s.reached)
			}
		}
		s.mu.Unlock()
	}
}

// stop waits up to limit for want names, ends the watch and returns when
// each name was seen.
func (s *serverWatch) stop(ctx context.Context, limit time.Duration) (map[string]time.Time, error) {
	err := waitClosed(ctx, s.reached, s.done, limit)
	s.w.Stop()
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		err = fmt.Errorf("watch at the API server: %d of %d changes: %w", len(s.seen), s.want, err)
	}
	return s.seen, err
}
