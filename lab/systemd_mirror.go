package lab

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// aptSourcesDir and aptSourcesList are where apt reads its sources; the
// systemd lab's base tree comes from the same mirror the machine uses, so
// it works behind whatever mirror or proxy the machine is set up with.
const (
	aptSourcesList = "/etc/apt/sources.list"
	aptSourcesDir  = "/etc/apt/sources.list.d"
)

// aptSource is one "deb" entry of the machine's apt configuration.
type aptSource struct {
	uri      string
	suites   []string
	signedBy string // keyring file, empty when none or inline
	origin   string // FILE:LINE, for messages
}

// debianMirror returns the first configured "deb" source that serves
// suite (e.g. "bookworm"), in apt's own reading order: sources.list, then
// sources.list.d/*.list and *.sources by name. Disabled entries
// (Enabled: no) and files apt ignores (other suffixes) are skipped.
func debianMirror(suite string) (aptSource, error) {
	files := []string{aptSourcesList}
	if entries, err := os.ReadDir(aptSourcesDir); err == nil {
		var names []string
		for _, e := range entries {
			if n := e.Name(); strings.HasSuffix(n, ".list") || strings.HasSuffix(n, ".sources") {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			files = append(files, filepath.Join(aptSourcesDir, n))
		}
	}
	var all []aptSource
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			return aptSource{}, fmt.Errorf("read apt sources: %w", err)
		}
		if strings.HasSuffix(f, ".sources") {
			all = append(all, parseDeb822Sources(f, string(b))...)
		} else {
			all = append(all, parseOneLineSources(f, string(b))...)
		}
	}
	for _, s := range all {
		for _, su := range s.suites {
			if su == suite {
				return s, nil
			}
		}
	}
	return aptSource{}, fmt.Errorf("no apt source for Debian %s in %s or %s/*.{list,sources}: add the machine's Debian mirror (e.g. `deb http://MIRROR/debian %s main`)",
		suite, aptSourcesList, aptSourcesDir, suite)
}

// parseOneLineSources reads the classic format:
// "deb [opt=value ...] URI SUITE COMPONENT...".
func parseOneLineSources(file, text string) []aptSource {
	var out []aptSource
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "deb" {
			continue
		}
		src := aptSource{origin: fmt.Sprintf("%s:%d", file, n)}
		rest := f[1:]
		if strings.HasPrefix(rest[0], "[") {
			// Options may span several fields: [arch=amd64 signed-by=/x].
			var opts []string
			for len(rest) > 0 {
				opts = append(opts, rest[0])
				done := strings.HasSuffix(rest[0], "]")
				rest = rest[1:]
				if done {
					break
				}
			}
			opt := strings.Trim(strings.Join(opts, " "), "[]")
			for _, o := range strings.Fields(opt) {
				if v, ok := strings.CutPrefix(o, "signed-by="); ok {
					src.signedBy = v
				}
			}
		}
		if len(rest) < 2 {
			continue
		}
		src.uri, src.suites = rest[0], []string{rest[1]}
		out = append(out, src)
	}
	return out
}

// parseDeb822Sources reads the deb822 format (stanzas of "Key: value"
// separated by blank lines), as Debian 12 images ship debian.sources.
func parseDeb822Sources(file, text string) []aptSource {
	var out []aptSource
	fields := map[string]string{}
	start, last := 0, ""
	flush := func() {
		defer func() { fields, last = map[string]string{}, "" }()
		if en := fields["enabled"]; len(fields) == 0 || en != "" && !strings.EqualFold(en, "yes") {
			return
		}
		if !slices.Contains(strings.Fields(fields["types"]), "deb") {
			return
		}
		signed := strings.TrimSpace(fields["signed-by"])
		if strings.Contains(signed, "\n") || strings.HasPrefix(signed, "-----") {
			signed = "" // an inline key: debootstrap can only take a file
		}
		for _, uri := range strings.Fields(fields["uris"]) {
			out = append(out, aptSource{uri: uri, suites: strings.Fields(fields["suites"]),
				signedBy: signed, origin: fmt.Sprintf("%s:%d", file, start)})
		}
	}
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t"):
			if last != "" { // a continuation line
				fields[last] += "\n" + strings.TrimSpace(line)
			}
		default:
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			if len(fields) == 0 {
				start = n
			}
			last = strings.ToLower(strings.TrimSpace(k))
			fields[last] = strings.TrimSpace(v)
		}
	}
	flush()
	return out
}

// mirrorFor returns the source of suite: an entry configured for it, or
// else the machine's own Debian mirror (the one serving baseSuite) with
// suite: one Debian archive serves every suite, signed by the keys of the
// machine's debian-archive-keyring.
func mirrorFor(suite string) (aptSource, error) {
	src, err := debianMirror(suite)
	if err == nil || suite == baseSuite {
		return src, err
	}
	own, ownErr := debianMirror(baseSuite)
	if ownErr != nil {
		return aptSource{}, err
	}
	own.suites = []string{suite}
	own.origin += ", the machine's mirror, which serves " + suite + " too"
	return own, nil
}
