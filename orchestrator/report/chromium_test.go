package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

const chromiumPath = "/usr/bin/chromium"

// needChromium skips a browser test where no browser is installed, except
// where the suite must prove the page renders: under ORCH_REQUIRE_LAB,
// ORCH_REQUIRE_BROWSER (scripts/test.sh sets it) or in CI, it fails.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err == nil {
		return
	}
	for _, v := range []string{"ORCH_REQUIRE_LAB", "ORCH_REQUIRE_BROWSER", "CI"} {
		if s := os.Getenv(v); s != "" && s != "0" && s != "false" {
			t.Fatalf("%s not installed and %s=%s requires the browser checks (scripts/lab-deps.sh installs chromium)", chromiumPath, v, s)
		}
	}
	t.Skipf("headless browser check skipped: %s not installed (apt-get install chromium)", chromiumPath)
}

// chromium opens page in headless Chromium with a window of w x h CSS
// pixels, offline, with script appended to the body: the script writes
// what the browser laid out as JSON into <pre id="probe">, which
// --dump-dom then prints; probe decodes it into v.
func chromium(t *testing.T, page, script string, w, h int, v any) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(strings.Replace(page, "</body>", script+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runChromium(t, dir, w, h, "--virtual-time-budget=10000", "--dump-dom", "file://"+file)
	m := probeRe.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no probe in the DOM chromium dumped (%d bytes)", len(out))
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), v); err != nil {
		t.Fatalf("probe %q: %v", m[1], err)
	}
}

// runChromium runs headless Chromium offline with a w x h window, its
// profile under dir, and returns what it printed.
func runChromium(t *testing.T, dir string, w, h int, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--hide-scrollbars", "--force-device-scale-factor=1", "--user-data-dir=" + filepath.Join(dir, "profile"),
		"--window-size=" + strconv.Itoa(w) + "," + strconv.Itoa(h)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

var probeRe = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// probeScript reports whether every image decoded (naturalWidth > 0) and
// the tables the browser laid out.
const probeScript = `<script>
window.addEventListener("load", function () {
  var imgs = Array.prototype.map.call(document.images, function (i) {
    return i.complete && i.naturalWidth > 0 ? i.naturalWidth : 0;
  });
  var rows = function (sel) { return document.querySelectorAll(sel).length; };
  var probe = document.createElement("pre");
  probe.id = "probe";
  probe.textContent = JSON.stringify({
    images: imgs,
    tables: rows("table"),
    configurations: rows("table.configurations tbody tr"),
    runs: rows("table.runs tbody tr"),
    details: rows("details.evidence"),
    tableWidth: document.querySelector("table.configurations").getBoundingClientRect().width,
    hidden: Array.from(document.querySelectorAll("div.scroll")).filter(function (d) { return d.scrollWidth > d.clientWidth + 1; }).map(function (d) { return d.firstElementChild.className + " " + d.scrollWidth + ">" + d.clientWidth; })
  });
  document.body.appendChild(probe);
});
</script>
`

// TestHTMLRendersInChromium opens report.html in headless Chromium and
// checks that its tables lay out and its inline plots decode, offline.
func TestHTMLRendersInChromium(t *testing.T) {
	needChromium(t)
	rep := build(t, analyse.Options{}, matrixDir, "testdata/parse/legacy-0.5.json")
	var page bytes.Buffer
	if err := render.WriteHTML(rep, &page); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Images                       []float64
		Tables, Configurations, Runs int
		Details                      int
		TableWidth                   float64
		Hidden                       []string
	}
	chromium(t, page.String(), probeScript, 1400, 1000, &got)
	tb := rep.Tables[0]
	if got.Configurations != len(tb.Groups) || got.Runs != len(tb.Runs) || got.TableWidth <= 0 {
		t.Errorf("rendered %d configuration rows, %d run rows, width %v: want %d, %d and a laid-out table",
			got.Configurations, got.Runs, got.TableWidth, len(tb.Groups), len(tb.Runs))
	}
	// At 1400 px no table hides columns behind a scroll bar.
	if len(got.Hidden) > 0 {
		t.Errorf("tables wider than the page at 1400 px: %v", got.Hidden)
	}
	if got.Details != 4 || got.Tables < 2 {
		t.Errorf("rendered %d tables and %d evidence details", got.Tables, got.Details)
	}
	if len(got.Images) != len(tb.Plots) {
		t.Fatalf("rendered %d images, want %d plots", len(got.Images), len(tb.Plots))
	}
	for i, w := range got.Images {
		if w <= 0 {
			t.Errorf("plot %s did not decode in the browser", tb.Plots[i].Name)
		}
	}
}
