package report

import (
	"bytes"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// layoutScript reports, once the page has loaded, the answer's lines with
// their place on the page, the answer box, and every element that reaches
// past the viewport's width without a box around it that scrolls or
// clips (a table that scrolls inside its own box is allowed: that box is
// measured too; the page itself must not scroll sideways).
const layoutScript = `<script>
window.addEventListener("load", function () {
  var W = document.documentElement.clientWidth;
  var box = function (r) { return {left: r.left + scrollX, top: r.top + scrollY, right: r.right + scrollX, bottom: r.bottom + scrollY}; };
  var answer = Array.from(document.querySelectorAll("section.answer ul.answer li")).map(function (li) {
    var b = box(li.getBoundingClientRect()); b.text = li.textContent; return b;
  });
  var sec = document.querySelector("section.answer");
  var over = [];
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || (r.right <= W + 0.5 && r.left >= -0.5)) return;
    for (var p = e.parentElement; p && p !== document.body; p = p.parentElement) { if (getComputedStyle(p).overflowX !== "visible") return; }
    over.push(e.tagName.toLowerCase() + (e.className ? "." + e.className : "") + " [" + Math.round(r.left) + ", " + Math.round(r.right) + "]");
  });
  var probe = document.createElement("pre");
  probe.id = "probe";
  probe.textContent = JSON.stringify({
    viewport: [innerWidth, innerHeight], clientWidth: W, pageWidth: document.documentElement.scrollWidth,
    answer: answer, section: sec ? box(sec.getBoundingClientRect()) : null, over: over.slice(0, 20),
    scrolling: Array.from(document.querySelectorAll("div.scroll")).filter(function (d) { return d.scrollWidth > d.clientWidth + 1; }).map(function (d) { return d.firstElementChild.className; })
  });
  document.body.appendChild(probe);
});
</script>
`

type pageBox struct {
	Left, Top, Right, Bottom float64
	Text                     string
}

type layout struct {
	Viewport    []float64
	ClientWidth float64
	PageWidth   float64
	Answer      []pageBox
	Section     *pageBox
	Over        []string
	Scrolling   []string // tables that scroll inside their box
}

// TestDemoReportFirstScreen renders the demo's report.html in headless
// Chromium: at 1280x800 the answer lines are the report's own answer and
// lie on the first screen, the screenshot shows the answer box there;
// at 1024 px nothing reaches past the viewport (a table may scroll inside
// its box); at 1920 px every table shows whole.
func TestDemoReportFirstScreen(t *testing.T) {
	needChromium(t)
	rep := build(t, analyse.Options{}, demoDir)
	var page bytes.Buffer
	if err := render.WriteHTML(rep, &page); err != nil {
		t.Fatal(err)
	}
	want := render.TableAnswer(rep.Tables[0])
	if len(want) == 0 || !regexp.MustCompile(`^rocksdb vs innodb: ([-+]\d+% writes/s \[[-+±]\d+%, [-+±]\d+%\]|~ no significant difference) \(p=`).MatchString(want[0]) {
		t.Fatalf("the demo's answer does not open with its comparison: %q", want)
	}

	var big layout
	chromium(t, page.String(), layoutScript, 1280, 800, &big)
	if len(big.Answer) != len(want) {
		t.Fatalf("the page shows %d answer lines, the report has %d: %+v", len(big.Answer), len(want), big.Answer)
	}
	// A 1280x800 window shows less than 800 px of page under a browser's
	// own bars (headless --dump-dom reports about 660): the stricter holds.
	screen := min(800, big.Viewport[1])
	for i, a := range big.Answer {
		if a.Text != want[i] {
			t.Errorf("answer line %d reads %q, want %q", i, a.Text, want[i])
		}
		if a.Top < 0 || a.Bottom > screen {
			t.Errorf("answer line %q at %v-%v px, outside the first %v px", a.Text, a.Top, a.Bottom, screen)
		}
	}
	if s := big.Section; s == nil || s.Bottom > screen {
		t.Errorf("the answer box (answer, when and on what) is not on the first screen: %+v", s)
	}
	if len(big.Over) > 0 || big.PageWidth > big.ClientWidth {
		t.Errorf("at 1280 px the page is %v px wide for %v; reaching past it: %v", big.PageWidth, big.ClientWidth, big.Over)
	}

	var narrow layout
	chromium(t, page.String(), layoutScript, 1024, 800, &narrow)
	if len(narrow.Over) > 0 || narrow.PageWidth > narrow.ClientWidth {
		t.Errorf("at 1024 px the page is %v px wide for %v; reaching past it: %v", narrow.PageWidth, narrow.ClientWidth, narrow.Over)
	}

	// On a wide screen every table shows whole.
	var wide layout
	chromium(t, page.String(), layoutScript, 1920, 1080, &wide)
	if len(wide.Over) > 0 || wide.PageWidth > wide.ClientWidth || len(wide.Scrolling) > 0 {
		t.Errorf("at 1920 px: page %v px for %v, reaching past it %v, tables scrolling %v", wide.PageWidth, wide.ClientWidth, wide.Over, wide.Scrolling)
	}

	// What a user sees: the screenshot has the answer box's left border
	// (its colour, #2b6cb0) beside the first answer line.
	if big.Section == nil {
		return
	}
	img := screenshot(t, page.String(), 1280, 800)
	x := int(big.Section.Left) + 2
	y := int((big.Answer[0].Top + big.Answer[0].Bottom) / 2)
	r, g, b, _ := img.At(x, y).RGBA()
	got := color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
	if d := max(absDiff(got.R, 0x2b), absDiff(got.G, 0x6c), absDiff(got.B, 0xb0)); d > 24 {
		t.Errorf("screenshot at (%d, %d) is %v, not the answer box's border: the answer is not drawn on the first screen", x, y, got)
	}
}

// screenshot is Chromium's picture of the page's first w x h pixels.
func screenshot(t *testing.T, page string, w, h int) interface {
	At(x, y int) color.Color
} {
	t.Helper()
	dir := t.TempDir()
	file, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "screen.png")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	runChromium(t, dir, w, h, "--screenshot="+shot, "file://"+file)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
	return img
}

func absDiff(a, b uint8) uint8 {
	if a > b {
		return a - b
	}
	return b - a
}
