package emulator

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// Dashboard exports are rendered for real, from the dashboard's sample
// rows: a PNG bar chart drawn with image/draw and a one-font PDF 1.4
// written object by object. Both open in any viewer, so a host's download
// path can be tested end to end.

// Content types of the export formats.
const (
	contentTypePNG = "image/png"
	contentTypePDF = "application/pdf"
)

// Size of a PNG export, in pixels.
const (
	pngWidth  = 960
	pngHeight = 540
)

// renderExport renders rows as a file of the given format ("png" or "pdf")
// titled title, and returns it with its content type.
func renderExport(format, title string, rows []sampleRow) ([]byte, string, error) {
	switch format {
	case "png":
		b, err := renderPNG(title, rows)
		return b, contentTypePNG, err
	case "pdf":
		return renderPDF(title, rows), contentTypePDF, nil
	default:
		return nil, "", fmt.Errorf("emulator: unknown export format %q", format)
	}
}

// regionColors are the bar colours of the sample regions, in
// sampleRegions order; an unknown region is drawn grey.
var regionColors = map[string]color.RGBA{
	"EMEA": {0x2f, 0x6f, 0xeb, 0xff},
	"AMER": {0x16, 0xa3, 0x4a, 0xff},
	"APAC": {0xea, 0x8c, 0x16, 0xff},
}

var (
	colorInk   = color.RGBA{0x1f, 0x29, 0x37, 0xff}
	colorMuted = color.RGBA{0x6b, 0x72, 0x80, 0xff}
	colorGrid  = color.RGBA{0xe5, 0xe7, 0xeb, 0xff}
	colorOther = color.RGBA{0x9c, 0xa3, 0xaf, 0xff}
)

// renderPNG draws a bar chart of the rows' revenue, one bar per row in row
// order, coloured by region, with the title, a legend and month labels.
func renderPNG(title string, rows []sampleRow) ([]byte, error) {
	img := image.NewRGBA(image.Rect(0, 0, pngWidth, pngHeight))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)

	const margin = 40
	drawText(img, margin, 24, 3, fitText(title, (pngWidth-2*margin)/(3*glyphAdvance)), colorInk)

	// Legend, top right under the title.
	x := margin
	for _, r := range sampleRegions {
		fill(img, image.Rect(x, 72, x+14, 86), regionColors[r])
		drawText(img, x+20, 72, 2, r, colorMuted)
		x += 20 + len(r)*2*glyphAdvance + 24
	}

	// Plot area.
	plot := image.Rect(margin+8, 104, pngWidth-margin, pngHeight-48)
	maxRevenue := 0.0
	for _, r := range rows {
		maxRevenue = max(maxRevenue, r.Revenue)
	}
	for i := 0; i <= 4; i++ {
		y := plot.Max.Y - i*plot.Dy()/4
		fill(img, image.Rect(plot.Min.X, y, plot.Max.X, y+1), colorGrid)
	}
	fill(img, image.Rect(plot.Min.X-1, plot.Min.Y, plot.Min.X, plot.Max.Y+1), colorMuted)
	fill(img, image.Rect(plot.Min.X-1, plot.Max.Y, plot.Max.X, plot.Max.Y+1), colorMuted)

	if len(rows) == 0 || maxRevenue <= 0 {
		drawText(img, plot.Min.X+plot.Dx()/2-7*glyphAdvance*2/2, plot.Min.Y+plot.Dy()/2-7, 2, "NO DATA", colorMuted)
	} else {
		slot := plot.Dx() / len(rows)
		gap := max(slot/5, 1)
		lastMonth := ""
		for i, r := range rows {
			h := int(float64(plot.Dy()-4) * r.Revenue / maxRevenue)
			h = max(h, 0)
			x0 := plot.Min.X + i*slot + gap/2
			c, ok := regionColors[r.Region]
			if !ok {
				c = colorOther
			}
			fill(img, image.Rect(x0, plot.Max.Y-h, x0+max(slot-gap, 1), plot.Max.Y), c)
			if m := monthLabel(r.Month); m != lastMonth {
				lastMonth = m
				drawText(img, x0, plot.Max.Y+10, 2, m, colorMuted)
			}
		}
	}

	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("emulator: encode png: %w", err)
	}
	return buf.Bytes(), nil
}

// monthLabel turns an ISO date into a short month label ("JAN 25"); any
// other text is returned as it is.
func monthLabel(date string) string {
	t, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return date
	}
	return strings.ToUpper(t.Format("Jan 06"))
}

// fill paints r with c.
func fill(img draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{C: c}, image.Point{}, draw.Src)
}

// fitText shortens s to at most n characters, marking a cut with "...".
func fitText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 3 {
		return string(r[:max(n, 0)])
	}
	return string(r[:n-3]) + "..."
}

// Glyphs of the built-in bitmap font are 5×7 pixels on a 6-pixel advance.
const (
	glyphWidth   = 5
	glyphHeight  = 7
	glyphAdvance = 6
)

// glyphs is a 5×7 bitmap font: per character, seven rows whose low five
// bits are the pixels, most significant bit leftmost. Lower-case letters
// are drawn as capitals; characters not listed are drawn as '?'.
var glyphs = map[rune][glyphHeight]byte{
	'A':  {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
	'B':  {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E},
	'C':  {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E},
	'D':  {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C},
	'E':  {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F},
	'F':  {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10},
	'G':  {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F},
	'H':  {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11},
	'I':  {0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E},
	'J':  {0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C},
	'K':  {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11},
	'L':  {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F},
	'M':  {0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11},
	'N':  {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11},
	'O':  {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},
	'P':  {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10},
	'Q':  {0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D},
	'R':  {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11},
	'S':  {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E},
	'T':  {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04},
	'U':  {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E},
	'V':  {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04},
	'W':  {0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A},
	'X':  {0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11},
	'Y':  {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04},
	'Z':  {0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F},
	'0':  {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E},
	'1':  {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E},
	'2':  {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F},
	'3':  {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E},
	'4':  {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02},
	'5':  {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E},
	'6':  {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E},
	'7':  {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08},
	'8':  {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E},
	'9':  {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C},
	' ':  {},
	'-':  {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00},
	'.':  {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C},
	',':  {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08},
	':':  {0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00},
	'/':  {0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00},
	'(':  {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02},
	')':  {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08},
	'\'': {0x0C, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00},
	'&':  {0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D},
	'!':  {0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04},
	'?':  {0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04},
	'_':  {0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F},
	'#':  {0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A},
	'+':  {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00},
	'%':  {0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03},
}

// drawText draws s with its top-left corner at (x, y), each font pixel a
// scale×scale square.
func drawText(img draw.Image, x, y, scale int, s string, c color.Color) {
	u := &image.Uniform{C: c}
	for _, r := range strings.ToUpper(s) {
		switch r {
		case '–', '—':
			r = '-'
		case '‘', '’':
			r = '\''
		}
		g, ok := glyphs[r]
		if !ok {
			g = glyphs['?']
		}
		for row, bits := range g {
			for col := range glyphWidth {
				if bits&(1<<(glyphWidth-1-col)) == 0 {
					continue
				}
				px := x + col*scale
				py := y + row*scale
				draw.Draw(img, image.Rect(px, py, px+scale, py+scale), u, image.Point{}, draw.Src)
			}
		}
		x += glyphAdvance * scale
	}
}

// PDF layout, in points on an A4 page.
const (
	pdfPageWidth   = 595
	pdfPageHeight  = 842
	pdfMargin      = 50
	pdfRowHeight   = 16
	pdfChartTop    = 770
	pdfChartBottom = 580
)

// pdfColumns are the table columns: header, x of the left edge or, for
// right-aligned columns, of the right edge.
var pdfColumns = []struct {
	header string
	x      float64
	right  bool
}{
	{"Region", pdfMargin, false},
	{"Month", 140, false},
	{"Revenue", 360, true},
	{"Orders", 450, true},
}

// renderPDF writes a PDF 1.4 file: the title and a bar chart of revenue on
// the first page, then a table of the rows, continued on further pages as
// needed, each page numbered.
func renderPDF(title string, rows []sampleRow) []byte {
	var pages []string
	var page strings.Builder
	y := float64(pdfPageHeight - pdfMargin - 12)

	// Title and chart.
	pdfText(&page, "F2", 18, pdfMargin, y, pdfFit(title, 18, pdfPageWidth-2*pdfMargin))
	pdfText(&page, "F1", 10, pdfMargin, y-18, "Monthly revenue by region")
	pdfChart(&page, rows)
	y = pdfChartBottom - 40

	header := func() {
		for _, c := range pdfColumns {
			pdfCell(&page, "F2", c.header, c.x, y, c.right)
		}
		fmt.Fprintf(&page, "0.6 G 0.5 w %d %s m %d %s l S 0 G\n",
			pdfMargin, pdfNum(y-5), pdfPageWidth-pdfMargin, pdfNum(y-5))
		y -= pdfRowHeight + 2
	}
	header()
	if len(rows) == 0 {
		pdfText(&page, "F1", 10, pdfMargin, y, "No rows for this viewer.")
	}
	for _, r := range rows {
		if y < pdfMargin+pdfRowHeight {
			pages = append(pages, page.String())
			page.Reset()
			y = pdfPageHeight - pdfMargin - 12
			header()
		}
		pdfCell(&page, "F1", r.Region, pdfColumns[0].x, y, false)
		pdfCell(&page, "F1", r.Month, pdfColumns[1].x, y, false)
		pdfCell(&page, "F1", formatAmount(r.Revenue), pdfColumns[2].x, y, true)
		pdfCell(&page, "F1", strconv.Itoa(r.Orders), pdfColumns[3].x, y, true)
		y -= pdfRowHeight
	}
	pages = append(pages, page.String())

	return pdfDocument(title, pages)
}

// pdfChart draws revenue bars, one per row, between pdfChartBottom and
// pdfChartTop.
func pdfChart(b *strings.Builder, rows []sampleRow) {
	left, right := float64(pdfMargin), float64(pdfPageWidth-pdfMargin)
	bottom, top := float64(pdfChartBottom), float64(pdfChartTop-40)
	fmt.Fprintf(b, "0.4 G 0.75 w %s %s m %s %s l %s %s l S 0 G\n",
		pdfNum(left), pdfNum(top), pdfNum(left), pdfNum(bottom), pdfNum(right), pdfNum(bottom))
	maxRevenue := 0.0
	for _, r := range rows {
		maxRevenue = max(maxRevenue, r.Revenue)
	}
	if len(rows) == 0 || maxRevenue <= 0 {
		return
	}
	slot := (right - left) / float64(len(rows))
	for i, r := range rows {
		c, ok := regionColors[r.Region]
		if !ok {
			c = colorOther
		}
		h := max((top-bottom-4)*r.Revenue/maxRevenue, 0)
		fmt.Fprintf(b, "%s %s %s rg %s %s %s %s re f\n",
			pdfNum(float64(c.R)/255), pdfNum(float64(c.G)/255), pdfNum(float64(c.B)/255),
			pdfNum(left+float64(i)*slot+slot*0.1), pdfNum(bottom), pdfNum(slot*0.8), pdfNum(h))
	}
	b.WriteString("0 g\n")
	// Legend under the chart.
	x := left
	for _, region := range sampleRegions {
		c := regionColors[region]
		fmt.Fprintf(b, "%s %s %s rg %s %s 8 8 re f 0 g\n",
			pdfNum(float64(c.R)/255), pdfNum(float64(c.G)/255), pdfNum(float64(c.B)/255),
			pdfNum(x), pdfNum(bottom-18))
		pdfText(b, "F1", 9, x+12, bottom-17, region)
		x += 70
	}
}

// pdfCell writes one table cell at baseline y; a right-aligned cell ends
// at x.
func pdfCell(b *strings.Builder, font, s string, x, y float64, right bool) {
	if right {
		x -= helveticaWidth(s, 10)
	}
	pdfText(b, font, 10, x, y, s)
}

// pdfText writes s in font at size with its baseline starting at (x, y).
func pdfText(b *strings.Builder, font string, size, x, y float64, s string) {
	fmt.Fprintf(b, "BT /%s %s Tf %s %s Td (%s) Tj ET\n", font, pdfNum(size), pdfNum(x), pdfNum(y), pdfString(s))
}

// pdfFit shortens s so that it is at most width points wide at size.
func pdfFit(s string, size, width float64) string {
	if helveticaWidth(s, size) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && helveticaWidth(string(r)+"...", size) > width {
		r = r[:len(r)-1]
	}
	return string(r) + "..."
}

// pdfDocument assembles the objects of a PDF file around the page content
// streams and writes the cross-reference table with each object's byte
// offset.
func pdfDocument(title string, pages []string) []byte {
	// Objects: 1 catalog, 2 page tree, 3 and 4 fonts, 5 info, then a page
	// and its content stream for each page.
	const firstPage = 6
	var objs []string
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", firstPage+2*i)
	}
	objs = append(objs,
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		fmt.Sprintf("<< /Title %s /Producer (embedkit emulator) >>", pdfTextString(title)),
	)
	for i, content := range pages {
		var footer strings.Builder
		pdfText(&footer, "F1", 8, pdfMargin, 30, fmt.Sprintf("Page %d of %d", i+1, len(pages)))
		stream := content + footer.String()
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] "+
				"/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>",
				pdfPageWidth, pdfPageHeight, firstPage+2*i+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", len(stream), stream),
		)
	}

	var buf bytes.Buffer
	// The second line's high bytes mark the file as binary for transfer
	// tools, as the format recommends.
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = buf.Len()
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return buf.Bytes()
}

// pdfString escapes s for a literal string in WinAnsiEncoding: ASCII as
// is, Latin-1 letters as octal escapes, anything else as '?'.
func pdfString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '(' || r == ')' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		case r < 0x7f:
			b.WriteRune(r)
		case r >= 0xa0 && r <= 0xff:
			fmt.Fprintf(&b, "\\%03o", r)
		case winAnsiExtra[r] != "":
			b.WriteString(winAnsiExtra[r])
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}

// pdfTextString encodes s as a PDF text string for the document
// information: UTF-16BE with a byte order mark, in hex, so any title
// survives.
func pdfTextString(s string) string {
	var b strings.Builder
	b.WriteString("<FEFF")
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, "%04X", u)
	}
	b.WriteString(">")
	return b.String()
}

// winAnsiExtra are the octal escapes of the WinAnsiEncoding characters
// outside Latin-1 that titles commonly hold.
var winAnsiExtra = map[rune]string{
	'€': `\200`, '…': `\205`, '‘': `\221`, '’': `\222`,
	'“': `\223`, '”': `\224`, '•': `\225`, '–': `\226`, '—': `\227`,
}

// pdfNum formats a number for a content stream, with at most three
// decimals.
func pdfNum(f float64) string {
	return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64)
}

// formatAmount writes an amount with two decimals and thousands
// separators, as in 12,345.67.
func formatAmount(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, d := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String() + "." + frac
}

// helveticaWidths are the advance widths of Helvetica for the printable
// ASCII characters 32 to 126, in thousandths of the font size (the bold
// face is slightly wider; the regular widths are close enough for
// alignment and truncation).
var helveticaWidths = [95]int{
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
}

// helveticaWidth is the width of s in points at size.
func helveticaWidth(s string, size float64) float64 {
	w := 0
	for _, r := range s {
		if r >= 32 && r <= 126 {
			w += helveticaWidths[r-32]
		} else {
			w += 556
		}
	}
	return float64(w) * size / 1000
}
