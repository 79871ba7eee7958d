package devserver

import (
	"fmt"
	"net"
	"runtime"
)

// freePorts returns n distinct TCP ports that are free on ip.
//
// All n listeners are held open together, so the ports are distinct. Each is
// then closed from the accepting side of a loopback connection, which leaves
// the port in TIME_WAIT: Linux will not hand it out again for a bind to port
// 0 for about a minute, while an explicit bind still succeeds because Go
// listeners set SO_REUSEADDR. macOS and Windows allocate ephemeral ports
// sequentially, so the trick is not needed there.
func freePorts(ip string, n int) ([]int, error) {
	listeners := make([]*net.TCPListener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return nil, fmt.Errorf("pick free port on %s: %w", ip, err)
		}
		tl := l.(*net.TCPListener)
		listeners = append(listeners, tl)
		ports = append(ports, tl.Addr().(*net.TCPAddr).Port)
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return ports, nil
	}
	for _, l := range listeners {
		if err := parkInTimeWait(l); err != nil {
			return nil, err
		}
	}
	return ports, nil
}

// parkInTimeWait connects to l and closes the accepted side first.
func parkInTimeWait(l *net.TCPListener) error {
	client, err := net.DialTCP("tcp", nil, l.Addr().(*net.TCPAddr))
	if err != nil {
		return fmt.Errorf("reserve port %s: %w", l.Addr(), err)
	}
	defer client.Close()
	server, err := l.Accept()
	if err != nil {
		return fmt.Errorf("reserve port %s: %w", l.Addr(), err)
	}
	return server.Close()
}

// checkPortFree fails when port cannot be bound on ip. The embedded server
// and UI exit the process on a bind failure instead of returning an error.
func checkPortFree(ip string, port int) error {
	l, err := net.Listen("tcp", hostPort(ip, port))
	if err != nil {
		return fmt.Errorf("port %d on %s is not available: %w", port, ip, err)
	}
	return l.Close()
}

// choosePorts picks free ports for everything o leaves open. Explicit ports
// are held while the others are picked, so none is handed out twice.
func choosePorts(o Options) (ports, error) {
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	hold := func(what string, port int) error {
		l, err := net.Listen("tcp", hostPort(o.IP, port))
		if err != nil {
			return fmt.Errorf("%s port %d on %s is not available: %w", what, port, o.IP, err)
		}
		held = append(held, l)
		return nil
	}
	n := 4 // frontend HTTP, history, matching, worker
	if o.GRPCPort == 0 {
		n++
	} else if err := hold("gRPC", o.GRPCPort); err != nil {
		return ports{}, err
	}
	if o.UIPort == -1 {
		n++
	} else if o.UIPort > 0 {
		if err := hold("web UI", o.UIPort); err != nil {
			return ports{}, err
		}
	}
	free, err := freePorts(o.IP, n)
	if err != nil {
		return ports{}, err
	}
	next := func() int { p := free[0]; free = free[1:]; return p }
	p := ports{frontend: o.GRPCPort, frontendHTTP: next(), history: next(), matching: next(), worker: next(), ui: o.UIPort}
	if p.frontend == 0 {
		p.frontend = next()
	}
	if p.ui == -1 {
		p.ui = next()
	}
	return p, nil
}
