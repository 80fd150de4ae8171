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
	"strings"
	"testing"
	"time"
)

const chromiumPath = "/usr/bin/chromium"

// probeScript runs in the browser once the page has loaded and writes
// what it rendered into the DOM, which --dump-dom then prints: whether
// every image decoded (naturalWidth > 0) and the tables it laid out.
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

var probeRe = regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`)

// TestHTMLRendersInChromium opens report.html in headless Chromium and
// checks that its tables lay out and its inline plots decode, offline.
func TestHTMLRendersInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("headless browser check skipped: %s not installed (apt-get install chromium)", chromiumPath)
	}
	dir := t.TempDir()
	rep := build(t, Options{}, matrixDir, "testdata/parse/legacy-0.5.json")
	var page bytes.Buffer
	if err := rep.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	probed := strings.Replace(page.String(), "</body>", probeScript+"</body>", 1)
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, []byte(probed), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromiumPath, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1400,1000",
		"--virtual-time-budget=10000", "--dump-dom", "file://"+file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	m := probeRe.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no probe in the DOM chromium dumped (%d bytes); stderr:\n%s", len(out), stderr.String())
	}
	var got struct {
		Images                       []float64
		Tables, Configurations, Runs int
		Details                      int
		TableWidth                   float64
		Hidden                       []string
	}
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &got); err != nil {
		t.Fatalf("probe %q: %v", m[1], err)
	}
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
