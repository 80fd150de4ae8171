package report

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// htmlDoc is what checkHTML found in a page.
type htmlDoc struct {
	counts  map[string]int // elements by name
	classes map[string]int // elements by class
	images  [][]byte       // decoded data: URIs of <img>
	text    string         // all character data
}

// voidTag matches the HTML elements that have no end tag.
var voidTag = regexp.MustCompile(`<(meta|br|img|hr|input|link)\b([^>]*?)/?>`)

// checkHTML parses an HTML page as XML, strictly, to catch broken nesting:
// every element must close in order. Void elements are closed first.
// (The XML decoder's lenient HTML mode would repair mis-nesting silently.)
func checkHTML(page []byte) (*htmlDoc, error) {
	page = voidTag.ReplaceAll(page, []byte("<$1$2/>"))
	d := xml.NewDecoder(bytes.NewReader(page))
	d.Entity = xml.HTMLEntity
	doc := &htmlDoc{counts: map[string]int{}, classes: map[string]int{}}
	var stack []string
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			name := strings.ToLower(tk.Name.Local)
			stack = append(stack, name)
			doc.counts[name]++
			for _, a := range tk.Attr {
				switch {
				case a.Name.Local == "class":
					doc.classes[a.Value]++
				case name == "img" && a.Name.Local == "src":
					b64, ok := strings.CutPrefix(a.Value, "data:image/svg+xml;base64,")
					if !ok {
						return nil, fmt.Errorf("img src %.40q is not an inline SVG", a.Value)
					}
					img, err := base64.StdEncoding.DecodeString(b64)
					if err != nil {
						return nil, fmt.Errorf("img src: %w", err)
					}
					doc.images = append(doc.images, img)
				}
			}
		case xml.EndElement:
			name := strings.ToLower(tk.Name.Local)
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return nil, fmt.Errorf("line %d: </%s> closes <%s>", lineOf(d, page), name, strings.Join(stack, "><"))
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			text.Write(tk)
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("unclosed <%s>", strings.Join(stack, "><"))
	}
	doc.text = text.String()
	return doc, nil
}

func lineOf(d *xml.Decoder, page []byte) int {
	return bytes.Count(page[:d.InputOffset()], []byte("\n")) + 1
}

func TestHTMLReport(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir, "testdata/parse/legacy-0.5.json")
	var b bytes.Buffer
	if err := render.WriteHTML(rep, &b); err != nil {
		t.Fatal(err)
	}
	doc, err := checkHTML(b.Bytes())
	if err != nil {
		t.Fatalf("report.html is not well-formed: %v", err)
	}
	// Per workload: configurations and runs; per run with a directory:
	// versions, facts and (unless baseline or identical) variables.
	if doc.classes["configurations"] != 1 || doc.classes["runs"] != 1 {
		t.Errorf("tables by class: %v", doc.classes)
	}
	if n := doc.classes["evidence"]; n != 4 {
		t.Errorf("%d evidence <details>, want one per run with a directory (4)", n)
	}
	// Offline: nothing to fetch, no script.
	if doc.counts["script"]+doc.counts["link"] != 0 || bytes.Contains(b.Bytes(), []byte("http://")) || bytes.Contains(b.Bytes(), []byte("https://")) {
		t.Error("report.html has scripts or links to fetch: it must open offline")
	}
	// Each run with evidence is linked from the runs table.
	for _, id := range []string{"01-innodb-r1", "04-rocksdb-r2"} {
		anchor := `href="#ev-pure-random-writes-` + id + `"`
		target := `<details class="evidence" id="ev-pure-random-writes-` + id + `">`
		if !bytes.Contains(b.Bytes(), []byte(anchor)) || !bytes.Contains(b.Bytes(), []byte(target)) {
			t.Errorf("no link %s to %s", anchor, target)
		}
	}
	if len(doc.images) != 4 {
		t.Fatalf("%d images, want throughput, latency, lag and comparison", len(doc.images))
	}
	for i, img := range doc.images {
		var root struct {
			XMLName xml.Name
			Width   string `xml:"width,attr"`
		}
		if err := xml.Unmarshal(img, &root); err != nil || root.XMLName.Local != "svg" || root.Width == "" {
			t.Errorf("image %d: root %v width %q err %v: want an SVG document", i, root.XMLName, root.Width, err)
		}
	}
	throughput := string(doc.images[0])
	for _, label := range []string{"innodb", "rocksdb", "legacy-0.5", "semi-sync off", "fault"} {
		if !strings.Contains(throughput, ">"+label+"<") {
			t.Errorf("throughput chart has no legend entry %q", label)
		}
	}
	for _, want := range []string{rep.Tables[0].Group("rocksdb").Verdict, "+ default_storage_engine = ROCKSDB", "Knobs with no effect on this server"} {
		if !strings.Contains(doc.text, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

func TestCheckHTMLCatchesBrokenNesting(t *testing.T) {
	_, err := checkHTML([]byte("<html><body><table><tr><td>x</tr></table></body></html>"))
	if err == nil {
		t.Fatal("mis-nested page accepted")
	}
	if _, err := checkHTML([]byte(`<html><body><img src="x.png"></body></html>`)); err == nil || errors.Is(err, io.EOF) {
		t.Fatal("linked image accepted as inline")
	}
}
