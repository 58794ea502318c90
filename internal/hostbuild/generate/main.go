// Command generate writes the host page's generated files (see package
// hostbuild). Run it through `go generate ./middleware`, or from any
// directory of the module with -root pointing at the module root.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/embedkit/embedkit/internal/hostbuild"
)

func main() {
	root := flag.String("root", "..", "the module's root directory")
	flag.Parse()
	files, err := hostbuild.Generate(*root)
	if err == nil {
		err = hostbuild.Write(*root, files)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
