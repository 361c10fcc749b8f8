package redistest

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Ping sends one PING to a plain (no TLS, no password) server at addr and
// reports whether +PONG came back.
func Ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	return ping(c, nil)
}

// Ping sends one PING to the server the way a client of its URL would:
// over TLS trusting its CA, after AUTH with its credentials. It reports
// whether +PONG came back.
func (s *Server) Ping() error { return s.PingAs(s.User, s.Password) }

// PingAs is Ping with other credentials (none when password is empty).
func (s *Server) PingAs(user, password string) error {
	d := &net.Dialer{Timeout: time.Second}
	var c net.Conn
	var err error
	if s.cfg.tls {
		c, err = tls.DialWithDialer(d, "tcp", s.Addr, s.TLSConfig())
	} else {
		c, err = d.Dial("tcp", s.Addr)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	var auth []string
	if password != "" {
		auth = []string{"AUTH", password}
		if user != "" {
			auth = []string{"AUTH", user, password}
		}
	}
	return ping(c, auth)
}

// ping sends auth (when given) and PING as RESP arrays on c.
func ping(c net.Conn, auth []string) error {
	_ = c.SetDeadline(time.Now().Add(time.Second))
	r := bufio.NewReader(c)
	if auth != nil {
		if err := send(c, r, auth, "+OK"); err != nil {
			// The reply of a refused AUTH names no password.
			return fmt.Errorf("AUTH: %w", err)
		}
	}
	return send(c, r, []string{"PING"}, "+PONG")
}

func send(c net.Conn, r *bufio.Reader, args []string, want string) error {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	if _, err := c.Write([]byte(b.String())); err != nil {
		return err
	}
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if line = strings.TrimRight(line, "\r\n"); line != want {
		return fmt.Errorf("answered %q", line)
	}
	return nil
}
