package hostpage_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/embedkit/embedkit/hostpage"
)

// TestModulesAreTheSources: Modules serves the package's src/ modules as
// they are in the folder, every one of them.
func TestModulesAreTheSources(t *testing.T) {
	onDisk, err := filepath.Glob(filepath.Join("src", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	err = fs.WalkDir(hostpage.Modules(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		names = append(names, p)
		want, err := os.ReadFile(filepath.Join("src", p))
		if err != nil {
			t.Errorf("Modules serves %s, which src/ does not have", p)
			return nil
		}
		got, err := fs.ReadFile(hostpage.Modules(), p)
		if err != nil || string(got) != string(want) {
			t.Errorf("Modules serves %s unlike src/%s (%v)", p, p, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range onDisk {
		onDisk[i] = filepath.Base(onDisk[i])
	}
	slices.Sort(names)
	slices.Sort(onDisk)
	if !slices.Equal(names, onDisk) {
		t.Errorf("Modules serves %v, src/ holds %v", names, onDisk)
	}
}
