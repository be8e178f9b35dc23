package controlplane

import (
	"fmt"
	"net"
)

// freePorts returns n distinct TCP ports that were free on 127.0.0.1 a moment
// ago. Another process may take one before the component binds it; Start
// retries with new ports when a component reports "address already in use".
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close() // held until all are chosen, so they differ
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
