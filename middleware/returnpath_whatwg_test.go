package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// whatwgResolve is a Node script that resolves each path of a JSON array
// on stdin against https://app.test/dash/x with the WHATWG URL parser
// browsers implement, and prints the origin and pathname of each.
const whatwgResolve = `
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
	const out = JSON.parse(input).map((p) => {
		try {
			const u = new URL(p, "https://app.test/dash/x");
			return [u.origin, u.pathname];
		} catch (e) {
			return ["invalid", ""];
		}
	});
	process.stdout.write(JSON.stringify(out));
});
`

// returnPathTokens are the pieces hostile return paths are built from:
// slashes, dot segments in every encoding a browser reads as one, encoded
// query and fragment marks, and host-like text.
var returnPathTokens = []string{
	"/", "/", "/", "//", ".", "..", "%2e", "%2E", ".%2e", "%2e.", "%2e%2e", "%2E%2e",
	"%2f", "%2F", "%5c", "%3f", "%3F", "%23", "?", "#", "%252f", "%252e", "%25",
	"a", "evil.test", "@", ":", "%40", "%3a", "~", ";", "%20", "x.y",
}

// hostileReturnPaths returns n paths built from returnPathTokens, the same
// for every run.
func hostileReturnPaths(n int) []string {
	rng := rand.New(rand.NewPCG(30, 7))
	out := make([]string, 0, n)
	for range n {
		var b strings.Builder
		b.WriteByte('/')
		for range 1 + rng.IntN(7) {
			b.WriteString(returnPathTokens[rng.IntN(len(returnPathTokens))])
		}
		out = append(out, b.String())
	}
	return out
}

// TestSafeReturnPathAgreesWithWHATWG: every return path SafeReturnPath
// accepts stays on the page's origin, and its pathname starts with a
// single "/", when a browser's URL parser (Node's, the WHATWG URL
// standard) resolves it. Go's net/url reads "%2e" as no dot segment and
// would not show "/%2e//..%3f" resolving to "//..%3f".
func TestSafeReturnPathAgreesWithWHATWG(t *testing.T) {
	node := nodePath(t)
	paths := append(hostileReturnPaths(43000),
		// Found by this test: a browser reads %2e as ".", so each resolves
		// to a pathname starting "//".
		"/%2e//..%3f", "/%2E//x%23", "/a/..%2f/%2e%2e//evil.test%3f", "/.%2e//evil.test%23",
	)
	var accepted []string
	for _, p := range paths {
		if _, ok := SafeReturnPath(p); ok {
			accepted = append(accepted, p)
		}
	}
	if len(accepted) < 1000 {
		t.Fatalf("only %d of %d paths accepted: the run would check little", len(accepted), len(paths))
	}
	in, err := json.Marshal(accepted)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "-e", whatwgResolve)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var resolved [][2]string
	if err := json.Unmarshal(out, &resolved); err != nil || len(resolved) != len(accepted) {
		t.Fatalf("node answered %d results (%v), want %d", len(resolved), err, len(accepted))
	}
	bad := 0
	for i, r := range resolved {
		if r[0] != "https://app.test" || !strings.HasPrefix(r[1], "/") || strings.HasPrefix(r[1], "//") {
			bad++
			if bad <= 20 {
				t.Errorf("SafeReturnPath accepts %q, which a browser resolves to origin %s, pathname %q", accepted[i], r[0], r[1])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d accepted paths leave the origin or start \"//\" in a browser", bad, len(accepted))
	}
}
