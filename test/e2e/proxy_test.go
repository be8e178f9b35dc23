package e2e

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"
)

// proxy is a loopback TCP proxy to the API server that a test can cut (a
// client behind it is disconnected while the server goes on, and changes)
// or stall (it accepts connections and never answers, like a server that
// hangs).
type proxy struct {
	ln       net.Listener
	target   string
	mu       sync.Mutex
	cut      bool
	stalled  bool
	conns    map[net.Conn]struct{}
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
	p := &proxy{ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}, stopped: make(chan struct{}), accepted: make(chan struct{}, 100)}
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
	p.mu.Lock()
	p.conns[up] = struct{}{}
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); up.Close() }()
	_, _ = io.Copy(c, up)
	c.Close()
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
