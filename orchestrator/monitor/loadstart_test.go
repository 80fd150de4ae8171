package monitor

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Clients released together at an instant fixed ahead: load_start is that
// instant, not the call's; and a load that ends before it (interrupted
// while its clients waited) ends at it, an empty load, never a negative
// one.
func TestLoadStartsAtTheReleaseInstant(t *testing.T) {
	dir := t.TempDir()
	m, err := Start(context.Background(), Config{Dir: dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(4 * time.Second).Truncate(time.Millisecond)
	m.LoadStartsAt(at)
	if end := m.SetLoadActive(false); !end.Equal(at) {
		t.Errorf("a load ended before its release instant ends at %v, want %v", end, at)
	}
	if _, err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Time{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got[e.Kind] = e.T
	}
	if !got[KindLoadStart].Equal(at) || !got[KindLoadEnd].Equal(at) {
		t.Errorf("load_start %v and load_end %v, want both at the release instant %v", got[KindLoadStart], got[KindLoadEnd], at)
	}
}
