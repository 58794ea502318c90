// Package readme reads the code examples of a Markdown page, for the
// tests that check the README's examples (type-checked, loaded in a
// browser, bundled). It is for tests only.
package readme

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// PageBlocks returns the bodies of every fenced code block of language
// lang in the page at path, in order.
func PageBlocks(path, lang string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return blocksOf(string(b), lang), nil
}

// Blocks returns the bodies of the fenced code blocks of language lang
// ("```lang") in the section of the page at path whose heading is the
// level-2 heading title ("## title"), up to the next level-2 heading.
func Blocks(path, title, lang string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, section, ok := strings.Cut(string(b), "\n## "+title+"\n")
	if !ok {
		return nil, fmt.Errorf("readme: %s has no section %q", path, "## "+title)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	return blocksOf(section, lang), nil
}

// blocksOf returns the bodies of the fenced code blocks of lang in text.
func blocksOf(text, lang string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?ms)^```"+regexp.QuoteMeta(lang)+"\n(.*?)\n```$").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}
