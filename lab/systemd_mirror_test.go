package lab

import (
	"reflect"
	"testing"
)

func TestParseDeb822Sources(t *testing.T) {
	// As Debian 12 cloud images ship /etc/apt/sources.list.d/debian.sources.
	text := `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://src.example.org/debian
Suites: bookworm
Components: main

Types: deb
URIs: http://off.example.org/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL
 -----END PGP PUBLIC KEY BLOCK-----
`
	got := parseDeb822Sources("debian.sources", text)
	want := []aptSource{
		{uri: "http://deb.debian.org/debian", suites: []string{"bookworm", "bookworm-updates"},
			signedBy: "/usr/share/keyrings/debian-archive-keyring.gpg", origin: "debian.sources:1"},
		{uri: "http://deb.debian.org/debian-security", suites: []string{"bookworm-security"},
			origin: "debian.sources:19"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseOneLineSources(t *testing.T) {
	text := `# comment
deb-src http://src.example.org/debian bookworm main
deb [arch=amd64 signed-by=/etc/apt/keyrings/mirror.gpg] http://mirror.example.org/debian bookworm main contrib
deb http://security.debian.org/debian-security bookworm-security main # trailing
deb broken
`
	got := parseOneLineSources("sources.list", text)
	want := []aptSource{
		{uri: "http://mirror.example.org/debian", suites: []string{"bookworm"},
			signedBy: "/etc/apt/keyrings/mirror.gpg", origin: "sources.list:3"},
		{uri: "http://security.debian.org/debian-security", suites: []string{"bookworm-security"},
			origin: "sources.list:4"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
