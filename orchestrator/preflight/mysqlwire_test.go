package preflight

import (
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// wireServer speaks the connection phase of the MySQL client/server
// protocol as its documentation describes it (Protocol::HandshakeV10,
// OK_Packet, ERR_Packet, COM_PING, COM_QUIT): enough for a client to be
// greeted, log in or be refused, and ping. Each packet is a 3-byte
// little-endian length, a sequence id, and the payload.
type wireServer struct {
	ln    net.Listener
	Port  int
	conns atomic.Int32
	// greeting is the server's first packet; login its answer to the
	// client's handshake response (nil: the server hangs up).
	greeting, login []byte
	wg              sync.WaitGroup
}

// Behaviours of the fake server, each as a real server behaves.
const (
	wireGreets      = iota // MariaDB 10.11 greets and accepts any login
	wireRefuses            // greets, then refuses the login (1045)
	wireHostRefused        // refuses the client's host before greeting (1130)
	wireTooMany            // too many connections, before greeting (1040)
)

// startWire listens on addr ("127.0.0.1:0" for any port).
func startWire(t *testing.T, addr string, behaviour int) *wireServer {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	return serveWire(t, ln, behaviour)
}

// serveWire serves on ln until the test ends.
func serveWire(t *testing.T, ln net.Listener, behaviour int) *wireServer {
	s := &wireServer{ln: ln, Port: ln.Addr().(*net.TCPAddr).Port}
	switch behaviour {
	case wireGreets:
		s.greeting, s.login = handshakeV10("5.5.5-10.11.19-MariaDB-0+deb12u1"), okPacket()
	case wireRefuses:
		s.greeting = handshakeV10("5.5.5-10.11.19-MariaDB-0+deb12u1")
		s.login = errPacket(1045, "28000", "Access denied for user 'sbtest'@'localhost' (using password: YES)")
	case wireHostRefused:
		// Errors sent before the handshake carry no SQL state.
		s.greeting = errPacket(1130, "", "Host '127.0.0.1' is not allowed to connect to this MariaDB server")
	case wireTooMany:
		s.greeting = errPacket(1040, "", "Too many connections")
	}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *wireServer) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.Port)) }

func (s *wireServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.conns.Add(1)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			s.session(c)
		}()
	}
}

func (s *wireServer) session(c net.Conn) {
	if writePacket(c, 0, s.greeting) != nil || s.greeting[0] == 0xff {
		return
	}
	seq, _, err := readPacket(c) // HandshakeResponse41
	if err != nil || s.login == nil {
		return
	}
	if writePacket(c, seq+1, s.login) != nil || s.login[0] == 0xff {
		return
	}
	for {
		seq, p, err := readPacket(c)
		if err != nil || len(p) == 0 {
			return
		}
		switch p[0] {
		case 0x01: // COM_QUIT
			return
		case 0x0e: // COM_PING
			writePacket(c, seq+1, okPacket())
		default:
			writePacket(c, seq+1, errPacket(1047, "08S01", "Unknown command"))
		}
	}
}

func writePacket(w io.Writer, seq byte, payload []byte) error {
	n := len(payload)
	_, err := w.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...))
	return err
}

func readPacket(r io.Reader) (byte, []byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	p := make([]byte, int(hdr[0])|int(hdr[1])<<8|int(hdr[2])<<16)
	_, err := io.ReadFull(r, p)
	return hdr[3], p, err
}

// handshakeV10 with mysql_native_password and the capabilities
// CLIENT_LONG_PASSWORD, CLIENT_PROTOCOL_41, CLIENT_TRANSACTIONS,
// CLIENT_SECURE_CONNECTION and CLIENT_PLUGIN_AUTH.
func handshakeV10(version string) []byte {
	const caps = 0x00000001 | 0x00000200 | 0x00002000 | 0x00008000 | 0x00080000
	b := []byte{10}
	b = append(b, version...)
	b = append(b, 0)
	b = append(b, 7, 0, 0, 0)    // connection id
	b = append(b, "pr0t0c0l"...) // auth-plugin-data-part-1
	b = append(b, 0)             // filler
	b = append(b, caps&0xff, caps>>8&0xff)
	b = append(b, 45)   // utf8mb4_general_ci
	b = append(b, 2, 0) // SERVER_STATUS_AUTOCOMMIT
	b = append(b, caps>>16&0xff, caps>>24&0xff)
	b = append(b, 21)                  // length of auth-plugin-data
	b = append(b, make([]byte, 10)...) // reserved
	b = append(b, "sCr4mbl3d4t4"...)   // auth-plugin-data-part-2
	b = append(b, 0)
	b = append(b, "mysql_native_password"...)
	return append(b, 0)
}

// okPacket: header 0x00, affected rows 0, last insert id 0, status
// SERVER_STATUS_AUTOCOMMIT, no warnings.
func okPacket() []byte { return []byte{0x00, 0, 0, 2, 0, 0, 0} }

// errPacket: header 0xff, the code, '#' and the SQL state when there is
// one, the message.
func errPacket(code uint16, state, msg string) []byte {
	b := []byte{0xff, byte(code), byte(code >> 8)}
	if state != "" {
		b = append(append(b, '#'), state...)
	}
	return append(b, msg...)
}
