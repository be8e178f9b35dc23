package e2e

import (
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// proxy is a loopback TCP proxy to the API server that a test can cut (a
// client behind it is disconnected while the server goes on, and changes),
// stall (it accepts connections and never answers, like a server that
// hangs) or blackhole (its open connections stop carrying bytes, and stay
// open, like a network that changed under a laptop).
type proxy struct {
	ln     net.Listener
	target string
	// bursts has a value after a read from the server of 100 bytes or
	// more: a bookmark of a watch over HTTP/1.1 (about 140 bytes with its
	// chunk and TLS framing), not the ack of an idle HTTP/2 connection's
	// PING (39 bytes), which client-go's discovery client sends every 30s.
	bursts   chan struct{}
	mu       sync.Mutex
	cut      bool
	stalled  bool
	conns    map[net.Conn]struct{}
	holes    []*atomic.Bool // one per pipe: set when blackholed
	stopped  chan struct{}
	accepted chan struct{} // one value per connection accepted while stalled
}

// newProxy forwards a loopback port to server (https://host:port).
func newProxy(t *testing.T, server string) *proxy {
	t.Helper()
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}, stopped: make(chan struct{}), bursts: make(chan struct{}, 1), accepted: make(chan struct{}, 100)}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		<-p.stopped
		p.disconnect(false)
	})
	return p
}

// URL is the server URL to give the client.
func (p *proxy) URL() string { return "https://" + p.ln.Addr().String() }

func (p *proxy) serve() {
	defer close(p.stopped)
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c] = struct{}{}
		stalled := p.stalled
		p.mu.Unlock()
		if stalled {
			p.accepted <- struct{}{}
			continue
		}
		go p.pipe(c)
	}
}

func (p *proxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	hole := new(atomic.Bool)
	p.mu.Lock()
	p.conns[up] = struct{}{}
	p.holes = append(p.holes, hole)
	p.mu.Unlock()
	go p.copy(up, c, hole, nil)
	p.copy(c, up, hole, p.bursts)
}

// copy forwards src to dst, telling bursts, unless nil, of each read of
// 100 bytes or more, and drops them once hole is set; it closes dst when
// src ends.
func (p *proxy) copy(dst, src net.Conn, hole *atomic.Bool, bursts chan<- struct{}) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		k, err := src.Read(buf)
		if k > 0 && !hole.Load() {
			if bursts != nil && k >= 100 {
				select {
				case bursts <- struct{}{}:
				default: // one is waiting already
				}
			}
			if _, err := dst.Write(buf[:k]); err != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// blackhole makes every open connection drop what it carries, both ways,
// and close nothing; new connections are forwarded.
func (p *proxy) blackhole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.holes {
		h.Store(true)
	}
	p.holes = nil
}

// disconnect closes every connection; while cut, new ones are refused.
func (p *proxy) disconnect(cut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = cut
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// reconnect accepts connections again.
func (p *proxy) reconnect() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

// stall makes the proxy accept new connections and never answer them.
func (p *proxy) stall() {
	p.mu.Lock()
	p.stalled = true
	p.mu.Unlock()
}

// forget forgets the connections accepted while stalled so far.
func (p *proxy) forget() {
	for {
		select {
		case <-p.accepted:
		default:
			return
		}
	}
}

// waitStalled waits until a client has connected to the stalled proxy.
func (p *proxy) waitStalled(t *testing.T) {
	t.Helper()
	select {
	case <-p.accepted:
	case <-time.After(patience):
		t.Fatalf("nobody connected within %s", patience)
	}
}
