package emulator

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestRenderPNG(t *testing.T) {
	tests := []struct {
		name  string
		title string
		rows  []sampleRow
	}{
		{"all rows", "Sales overview", sampleRowsFor("sales-overview", nil, nil)},
		{"one region", "EMEA — Zürich (Q1)", sampleRowsFor("sales-overview", nil, map[string]any{"region": "emea"})},
		{"no rows", "", nil},
		{"unknown region, long title", strings.Repeat("Very long title ", 20), []sampleRow{{Region: "LATAM", Month: "n/a", Revenue: 1}}},
		{"zero revenue", "Zero", []sampleRow{{Region: "EMEA", Month: "2025-01-01"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ctype, err := renderExport("png", tt.title, tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			if ctype != "image/png" {
				t.Errorf("content type %q", ctype)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if sz := img.Bounds().Size(); sz.X != pngWidth || sz.Y != pngHeight {
				t.Errorf("size %v, want %dx%d", sz, pngWidth, pngHeight)
			}
		})
	}
}

func TestRenderPNGDrawsBars(t *testing.T) {
	rows := sampleRowsFor("sales-overview", nil, map[string]any{"region": "apac"})
	b, _, err := renderExport("png", "APAC", rows)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	want := regionColors["APAC"]
	found := 0
	for y := 0; y < pngHeight; y += 2 {
		for x := 0; x < pngWidth; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			if uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(bl>>8) == want.B {
				found++
			}
		}
	}
	if found < 1000 {
		t.Errorf("only %d sampled pixels in the APAC colour; the bars are missing", found)
	}
}

func TestRenderPDF(t *testing.T) {
	many := sampleRowsFor("sales-overview", nil, nil)
	for range 3 {
		many = append(many, many...)
	}
	tests := []struct {
		name      string
		title     string
		rows      []sampleRow
		wantPages int
	}{
		{"all rows", "Sales overview", sampleRowsFor("sales-overview", nil, nil), 1},
		{"escapes and Latin-1", `Q1 (draft) \ café — “quoted” 日本`, sampleRowsFor("x", nil, nil), 1},
		{"no rows", "Empty", nil, 1},
		{"many rows", "Many", many, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ctype, err := renderExport("pdf", tt.title, tt.rows)
			if err != nil {
				t.Fatal(err)
			}
			if ctype != "application/pdf" {
				t.Errorf("content type %q", ctype)
			}
			checkPDF(t, b)
			if got := bytes.Count(b, []byte("/Type /Page ")); got != tt.wantPages {
				t.Errorf("%d pages, want %d", got, tt.wantPages)
			}
			if !bytes.Contains(b, []byte("/BaseFont /Helvetica")) {
				t.Error("no Helvetica font object")
			}
			for _, r := range tt.rows[:min(len(tt.rows), 3)] {
				if !bytes.Contains(b, []byte("("+formatAmount(r.Revenue)+") Tj")) {
					t.Errorf("revenue %s not in the content", formatAmount(r.Revenue))
				}
			}
		})
	}
}

// checkPDF checks the file's frame and that every cross-reference entry
// points at the object it names, and the startxref at the table.
func checkPDF(t *testing.T, b []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-1.")) {
		t.Fatalf("no PDF header: %q", b[:min(len(b), 10)])
	}
	if !bytes.HasSuffix(bytes.TrimRight(b, "\r\n"), []byte("%%EOF")) {
		t.Fatal("no end-of-file marker at the end")
	}
	m := regexp.MustCompile(`startxref\n(\d+)\n%%EOF\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("no startxref")
	}
	xref, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(b[xref:], []byte("xref\n")) {
		t.Fatalf("startxref %d does not point at the xref table", xref)
	}
	lines := strings.Split(string(b[xref:]), "\n")
	var first, count int
	if _, err := fmt.Sscan(lines[1], &first, &count); err != nil || first != 0 {
		t.Fatalf("xref subsection header %q", lines[1])
	}
	if lines[2] != "0000000000 65535 f " {
		t.Errorf("entry 0 = %q", lines[2])
	}
	for n := 1; n < count; n++ {
		e := lines[2+n]
		if len(e)+1 != 20 || !strings.HasSuffix(e, " 00000 n ") {
			t.Fatalf("entry %d = %q: not a 20-byte in-use entry", n, e)
		}
		off, _ := strconv.Atoi(e[:10])
		if want := strconv.Itoa(n) + " 0 obj"; !bytes.HasPrefix(b[off:], []byte(want)) {
			t.Errorf("entry %d offset %d points at %q, want %q", n, off, b[off:min(off+12, len(b))], want)
		}
	}
	if !bytes.Contains(b, []byte("/Size "+strconv.Itoa(count)+" ")) {
		t.Errorf("trailer /Size is not %d", count)
	}
	// Each stream's /Length is its exact byte length.
	for _, sm := range regexp.MustCompile(`(?s)<< /Length (\d+) >>\nstream\n(.*?)endstream`).FindAllSubmatch(b, -1) {
		if n, _ := strconv.Atoi(string(sm[1])); n != len(sm[2]) {
			t.Errorf("stream /Length %d, actual %d", n, len(sm[2]))
		}
	}
}

// TestRenderPDFOpens opens the file with pdftoppm when it is installed.
func TestRenderPDFOpens(t *testing.T) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		t.Fatal("pdftoppm not found: run 'make test', which installs poppler-utils")
	}
	b, _, err := renderExport("pdf", "Sales overview", sampleRowsFor("sales-overview", nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "export.pdf")
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-r", "20", "-png", in, filepath.Join(dir, "page")).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	if pages, _ := filepath.Glob(filepath.Join(dir, "page*.png")); len(pages) != 1 {
		t.Fatalf("pdftoppm wrote %d pages, want 1", len(pages))
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	for _, f := range []string{"", "PNG", "csv", "xlsx"} {
		if b, ctype, err := renderExport(f, "x", nil); err == nil || b != nil || ctype != "" {
			t.Errorf("format %q: %d bytes, %q, %v", f, len(b), ctype, err)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	for in, want := range map[float64]string{
		0: "0.00", 5.5: "5.50", 999.999: "1,000.00", 12345.67: "12,345.67",
		1234567.8: "1,234,567.80", -12345.67: "-12,345.67",
	} {
		if got := formatAmount(in); got != want {
			t.Errorf("formatAmount(%v) = %q, want %q", in, got, want)
		}
	}
}
