package readme

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestBlocks(t *testing.T) {
	page := "# T\n\n## One\n\n```ts\nconst a = 1;\n```\n\n```html\n<p>x</p>\n```\n\n```ts\nconst b = 2;\n```\n\n## Two\n\n```ts\nconst c = 3;\n```\n"
	path := filepath.Join(t.TempDir(), "README.md")
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Blocks(path, "One", "ts")
	if err != nil || !slices.Equal(got, []string{"const a = 1;", "const b = 2;"}) {
		t.Errorf("Blocks(One, ts) = %q, %v", got, err)
	}
	if got, _ := Blocks(path, "One", "html"); !slices.Equal(got, []string{"<p>x</p>"}) {
		t.Errorf("Blocks(One, html) = %q", got)
	}
	if got, _ := Blocks(path, "One", "t"); len(got) != 0 {
		t.Errorf(`Blocks(One, "t") = %q, want none: a language is matched whole`, got)
	}
	if _, err := Blocks(path, "Three", "ts"); err == nil {
		t.Error("a missing section is not an error")
	}
	got, err = PageBlocks(path, "ts")
	if err != nil || !slices.Equal(got, []string{"const a = 1;", "const b = 2;", "const c = 3;"}) {
		t.Errorf("PageBlocks(ts) = %q, %v; want every section's", got, err)
	}
	if _, err := PageBlocks(filepath.Join(t.TempDir(), "missing.md"), "ts"); err == nil {
		t.Error("a missing page is not an error")
	}
}
