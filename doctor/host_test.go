package doctor

import (
	"strings"
	"testing"
)

func TestEmbeds(t *testing.T) {
	const origin, prefix = "https://app.example.com", "/embed/frame/"
	tests := []struct {
		name, page string
		want       bool
	}{
		{"iframe of the frame endpoint", `<iframe src="/embed/frame/sales"></iframe>`, true},
		{"absolute src on the page's origin", `<IFRAME title=x SRC='https://app.example.com/embed/frame/sales'>`, true},
		{"escaped src", `<iframe src="/embed/frame/dashboard/a?x=1&amp;y=2">`, true},
		{"data-embedkit", `<iframe data-embedkit src="/other/path"></iframe>`, true},
		{"embedkit-frame element", `<embedkit-frame target="sales"></embedkit-frame>`, true},
		{"sign-in form", `<form method="post"><input name="password"></form>`, false},
		{"iframe of another origin", `<iframe src="https://evil.example/embed/frame/x"></iframe>`, false},
		{"iframe elsewhere on the app", `<iframe src="/help"></iframe>`, false},
		{"prefix in text only", `<p>see /embed/frame/sales</p>`, false},
		{"embedkit-frame-like name", `<embedkit-framed>`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := embeds([]byte(tt.page), origin, prefix); got != tt.want {
				t.Errorf("embeds(%q) = %v, want %v", tt.page, got, tt.want)
			}
		})
	}
}

// FuzzEmbeds: embeds never panics, and a page that embeds still does with
// any text after it.
func FuzzEmbeds(f *testing.F) {
	f.Add(`<iframe src="/embed/frame/sales"></iframe>`, "<p>")
	f.Add(`<embedkit-frame target="x">`, "")
	f.Add(`<form></form>`, `<iframe data-embedkit>`)
	f.Fuzz(func(t *testing.T, page, tail string) {
		const origin, prefix = "https://app.example.com", "/embed/frame/"
		got := embeds([]byte(page), origin, prefix)
		if got && !strings.Contains(page, "<") {
			t.Fatalf("embeds(%q) without a tag", page)
		}
		if got && !embeds([]byte(page+"\n"+tail), origin, prefix) && !strings.Contains(tail, ">") {
			t.Fatalf("embeds(%q) but not with %q after it", page, tail)
		}
	})
}
