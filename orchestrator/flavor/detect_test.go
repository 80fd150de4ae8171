package flavor

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		version, comment string
		want             Server
		wantString       string
		wantErr          string // substring; "" means success
	}{
		{"10.11.19-MariaDB-0+deb12u1-log", "Debian 12", Server{MariaDB, V(10, 11, 19)}, "MariaDB 10.11.19", ""},
		{"10.11.6-MariaDB", "mariadb.org binary distribution", Server{MariaDB, V(10, 11, 6)}, "MariaDB 10.11.6", ""},
		{"5.5.5-10.6.18-MariaDB-log", "MariaDB Server", Server{MariaDB, V(10, 6, 18)}, "MariaDB 10.6.18", ""},
		{"11.4.2-MariaDB-ubu2404", "mariadb.org binary distribution", Server{MariaDB, V(11, 4, 2)}, "MariaDB 11.4.2", ""},
		{"10.3.39-MariaDB", "", Server{MariaDB, V(10, 3, 39)}, "MariaDB 10.3.39", ""},
		{"5.7.44-48-log", "Percona Server (GPL), Release 48, Revision 497f936a373", Server{Percona, V(5, 7, 44)}, "Percona Server 5.7.44", ""},
		{"8.0.36-28", "Percona Server (GPL), Release 28, Revision 47601f19", Server{Percona, V(8, 0, 36)}, "Percona Server 8.0.36", ""},
		{"8.0.36", "MySQL Community Server - GPL", Server{MySQL, V(8, 0, 36)}, "MySQL 8.0.36", ""},
		{"8.0.36-0ubuntu0.22.04.1", "(Ubuntu)", Server{MySQL, V(8, 0, 36)}, "MySQL 8.0.36", ""},
		{"5.7.44-log", "MySQL Community Server (GPL)", Server{MySQL, V(5, 7, 44)}, "MySQL 5.7.44", ""},
		{"8.4.3", "MySQL Community Server - GPL", Server{MySQL, V(8, 4, 3)}, "MySQL 8.4.3", ""},
		{"8.4.3", "", Server{MySQL, V(8, 4, 3)}, "MySQL 8.4.3", ""},
		{"9.1.0", "MySQL Community Server - GPL", Server{MySQL, V(9, 1, 0)}, "MySQL 9.1.0", ""},
		{" 8.0.21 ", "Source distribution", Server{MySQL, V(8, 0, 21)}, "MySQL 8.0.21", ""},

		// Unsupported versions name the flavour, version and minimum.
		{"10.2.44-MariaDB", "mariadb.org binary distribution", Server{}, "", "MariaDB 10.2.44 is not supported: orch needs MariaDB 10.3.3 or later"},
		{"10.3.2-MariaDB", "", Server{}, "", "MariaDB 10.3.2 is not supported"},
		{"5.5.68-MariaDB", "MariaDB Server", Server{}, "", "MariaDB 5.5.68 is not supported"},
		{"5.6.51-log", "MySQL Community Server (GPL)", Server{}, "", "MySQL 5.6.51 is not supported: orch needs MySQL 5.7.0 or later"},
		{"5.6.51-91.0", "Percona Server (GPL), Release 91.0", Server{}, "", "Percona Server 5.6.51 is not supported"},

		// Garbage.
		{"", "", Server{}, "", `version "": want major.minor.patch`},
		{"garbage", "MySQL", Server{}, "", "want major.minor.patch"},
		{"8.0", "", Server{}, "", "want major.minor.patch"},
		{"8.0.", "", Server{}, "", "want major.minor.patch"},
		{"v8.0.36", "", Server{}, "", "want major.minor.patch"},
		{"8.0.36.1", "", Server{}, "", `unexpected ".1"`},
		{"8.0.36abc", "", Server{}, "", `unexpected "abc"`},
		{"1234567.0.0", "", Server{}, "", "want major.minor.patch"},
		{"MariaDB", "", Server{}, "", "want major.minor.patch"},
	}
	for _, tt := range tests {
		got, err := Detect(tt.version, tt.comment)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Detect(%q, %q) = %v, %v; want error containing %q", tt.version, tt.comment, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want || got.String() != tt.wantString {
			t.Errorf("Detect(%q, %q) = %v (%q), %v; want %v (%q)", tt.version, tt.comment, got, got.String(), err, tt.want, tt.wantString)
		}
	}
}

func TestDetectErrorMentionsInput(t *testing.T) {
	_, err := Detect("garbage", "Some Comment")
	if err == nil || !strings.Contains(err.Error(), `"garbage"`) || !strings.Contains(err.Error(), `"Some Comment"`) {
		t.Fatalf("error %v does not name the inputs", err)
	}
}

func TestVersionCompare(t *testing.T) {
	ordered := []Version{V(5, 7, 44), V(8, 0, 9), V(8, 0, 21), V(8, 0, 22), V(8, 1, 0), V(8, 4, 3), V(9, 1, 0), V(10, 11, 19)}
	for i, a := range ordered {
		for j, b := range ordered {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("%v.Compare(%v) = %d, want %d", a, b, got, want)
			}
			if got := a.AtLeast(b); got != (i >= j) {
				t.Errorf("%v.AtLeast(%v) = %t", a, b, got)
			}
		}
	}
}

func TestParseFlavor(t *testing.T) {
	for in, want := range map[string]Flavor{"mysql": MySQL, " MariaDB ": MariaDB, "PERCONA": Percona} {
		if got, err := ParseFlavor(in); err != nil || got != want {
			t.Errorf("ParseFlavor(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFlavor("postgres"); err == nil {
		t.Error("ParseFlavor(postgres) succeeded")
	}
	if _, err := New("postgres", V(16, 0, 0)); err == nil {
		t.Error("New(postgres) succeeded")
	}
}

func FuzzDetect(f *testing.F) {
	f.Add("10.11.19-MariaDB-0+deb12u1-log", "Debian 12")
	f.Add("5.7.44-48-log", "Percona Server (GPL), Release 48")
	f.Add("8.0.36", "MySQL Community Server - GPL")
	f.Add("5.5.5-10.2.44-MariaDB", "")
	f.Add("9.99.999999-x", "percona")
	f.Fuzz(func(t *testing.T, version, comment string) {
		s, err := Detect(version, comment)
		if err != nil {
			return
		}
		// A detected server round-trips and answers every basic feature.
		if v, err := ParseVersion(s.Version.String()); err != nil || v != s.Version {
			t.Fatalf("%v: version does not round-trip: %v %v", s, v, err)
		}
		if _, err := New(s.Flavor, s.Version); err != nil {
			t.Fatalf("%v: New rejects a detected server: %v", s, err)
		}
		for _, f := range requiredFeatures {
			if _, ok := s.Lookup(f); !ok {
				t.Fatalf("%v lacks %s", s, f)
			}
		}
	})
}
