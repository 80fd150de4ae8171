package topology

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// checkHost validates an IP address or DNS name (without a port) and
// returns what is wrong with it, or "".
func checkHost(s string) string {
	if s == "" {
		return "empty address"
	}
	if _, err := netip.ParseAddr(s); err == nil {
		return ""
	}
	if strings.Contains(s, ":") {
		return "not an IP address or DNS name (put the SSH port in ssh.port)"
	}
	if strings.Trim(s, "0123456789.") == "" {
		return "not a valid IPv4 address"
	}
	name := strings.TrimSuffix(s, ".") // a fully qualified name may end in a dot
	if len(name) == 0 || len(name) > 253 {
		return "not a valid DNS name (1 to 253 characters)"
	}
	for _, label := range strings.Split(name, ".") {
		if !dnsLabel.MatchString(label) {
			return "not a valid DNS name (labels of letters, digits, '-' and '_', not starting or ending with '-')"
		}
	}
	return ""
}

// dnsLabel allows '_' too: internal zones use it and ssh copes.
var dnsLabel = regexp.MustCompile(`^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$`)

// parsePort parses a decimal TCP port 1..65535.
func parsePort(s string) (int, string) {
	if s == "" || strings.Trim(s, "0123456789") != "" || len(s) > 5 {
		return 0, fmt.Sprintf("port %q is not a number 1..65535", clip(s))
	}
	n, _ := strconv.Atoi(s)
	if n < 1 || n > 65535 {
		return 0, fmt.Sprintf("port %d is out of range 1..65535", n)
	}
	return n, ""
}

// splitHostPort parses "host", "host:port", "[v6]" or "[v6]:port" as written
// in ips.txt lines and jump_host. A bare IPv6 address has no port.
func splitHostPort(s string) (host string, port int, problem string) {
	if _, err := netip.ParseAddr(s); err == nil {
		return s, 0, ""
	}
	var portText string
	hasPort := false
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, "missing ']' after an IPv6 address"
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return "", 0, "unexpected text after ']' (want [IPv6]:port)"
			}
			portText, hasPort = rest[1:], true
		}
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() {
			return "", 0, "brackets must hold an IPv6 address"
		}
	case strings.Count(s, ":") == 1:
		host, portText, _ = strings.Cut(s, ":")
		hasPort = true
	case strings.Count(s, ":") > 1:
		return "", 0, "not a valid IPv6 address (write [IPv6]:port to add a port)"
	default:
		host = s
	}
	if p := checkHost(host); p != "" {
		return "", 0, p
	}
	if hasPort {
		if port, problem = parsePort(portText); problem != "" {
			return "", 0, problem
		}
	}
	return host, port, ""
}

// addrKey is the form in which two addresses are compared: IPs in canonical
// form (so ::1 and 0::1 match), names case-insensitively without a final dot.
func addrKey(host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().WithZone("").String()
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// sshPortKey is the port two hosts are compared on: unset means the SSH
// default. Treating unset as 22 may flag two hosts whose ~/.ssh/config gives
// different ports; writing the ports out fixes that, whereas the opposite
// mistake would silently put two roles on one server.
func sshPortKey(p int) int {
	if p == 0 {
		return defaultSSHPort
	}
	return p
}

// checkJumpHost validates "[user@]host[:port]".
func checkJumpHost(s string) string {
	hostport := s
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		user := s[:at]
		if user == "" || strings.ContainsAny(user, " \t@") {
			return "invalid user before '@' (want [user@]host[:port])"
		}
		hostport = s[at+1:]
	}
	if _, _, p := splitHostPort(hostport); p != "" {
		return p + " (want [user@]host[:port])"
	}
	return ""
}
