package main

import (
	"fmt"
	"strings"
	"testing"
)

// sample is `go test -bench` output of two packages, with two runs of
// most benchmarks.
const sample = `goos: linux
goarch: amd64
pkg: github.com/embedkit/embedkit/middleware
cpu: Intel(R) Xeon(R) Processor
BenchmarkFrame/kit-2         	    3000	    210000 ns/op	    300000 cpu-ns/op	   45891 B/op	     541 allocs/op
BenchmarkFrame/kit-2         	    3000	    200000 ns/op	    310000 cpu-ns/op	   45891 B/op	     541 allocs/op
BenchmarkFrame/kit-2         	    3000	    900000 ns/op	    320000 cpu-ns/op	   45891 B/op	     541 allocs/op
BenchmarkFrame/kit-frameurl         	    3000	    200000 ns/op	    305000 cpu-ns/op	   45891 B/op	     300 allocs/op
BenchmarkFrame/baseline    	    6000	    200000 ns/op	    290000 cpu-ns/op	   18300 B/op	     244 allocs/op
BenchmarkFrame/baseline-identity	    6000	    200000 ns/op	    289000 cpu-ns/op	   18300 B/op	     280 allocs/op
BenchmarkFrame/baseline-busy	    6000	    210000 ns/op	    305000 cpu-ns/op	   18300 B/op	     244 allocs/op
BenchmarkFrameParallel/kit-2 	    2000	    300000 ns/op	    200000 cpu-ns/op	        64.00 callers	         0 closed	        69.00 conns	         0.03450 conns/op	        80.00 warmup-conns	   40022 B/op	     542 allocs/op
BenchmarkFrameParallel/baseline-2	    2000	    200000 ns/op	    195000 cpu-ns/op	        64.00 callers	         0 closed	        64.00 conns	         0.03200 conns/op	        66.00 warmup-conns	   19230 B/op	     247 allocs/op
BenchmarkLogout/sessions=1-2     	      50	  20000000 ns/op
BenchmarkLogout/sessions=50-2    	      10	 140000000 ns/op
--- BENCH: BenchmarkSomething
    bench_test.go:10: a log line
PASS
ok  	github.com/embedkit/embedkit/middleware	12.3s
pkg: github.com/embedkit/embedkit/adapters/gorillasession
BenchmarkStore/cookie-2         	   20000	     41000 ns/op	     45000 cpu-ns/op
BenchmarkStore/cookie-2         	   20000	     20000 ns/op	     22000 cpu-ns/op
BenchmarkStore/cookie-2         	   20000	     24000 ns/op	     33000 cpu-ns/op
pkg: github.com/embedkit/embedkit/adapters/memstore
BenchmarkStore/memory-2         	  907164	      1585 ns/op	       241.9 B/id	     160 B/op	       3 allocs/op
BenchmarkStore/memory-2         	  907164	      1600 ns/op	       250.1 B/id	     160 B/op	       3 allocs/op
BenchmarkAddToFullKey/memory-2         	   50781	     22299 ns/op	     585 B/op	       4 allocs/op
BenchmarkValidate-2   	  715072	      1433 ns/op	     144 B/op	       1 allocs/op
BenchmarkEmulatorGenerateSession/empty-2         	   33560	     50000 ns/op	   14554 B/op	     150 allocs/op
BenchmarkEmulatorGenerateSession/100k-sessions-2 	   32336	     45000 ns/op	   14664 B/op	     150 allocs/op
`

func TestParse(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, bench, unit string
		want              float64
	}{
		{"odd count takes the middle", "BenchmarkFrame/kit", "ns/op", 210000},
		{"even count averages the middle two", "BenchmarkStore/memory", "B/id", 246},
		{"custom metric", "BenchmarkFrameParallel/kit", "conns", 69},
		{"suffix with = in the name", "BenchmarkLogout/sessions=50", "ns/op", 140000000},
		{"top-level benchmark", "BenchmarkValidate", "allocs/op", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := res.median(tt.bench, tt.unit)
			if !ok || got != tt.want {
				t.Errorf("median(%s, %s) = %v, %v; want %v", tt.bench, tt.unit, got, ok, tt.want)
			}
		})
	}
	if _, ok := res["BenchmarkSomething"]; ok {
		t.Error("a --- BENCH line was parsed as a result")
	}
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		ok   bool
	}{
		{"result", "BenchmarkX-8  10  5 ns/op", true},
		{"no GOMAXPROCS suffix", "BenchmarkX  10  5 ns/op", true},
		{"header", "goos: linux", false},
		{"bench log", "--- BENCH: BenchmarkX", false},
		{"odd fields", "BenchmarkX-8  10  5", false},
		{"not a count", "BenchmarkX-8  ten  5 ns/op", false},
		{"not a value", "BenchmarkX-8  10  five ns/op", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, _, ok := parseLine(tt.line)
			if ok != tt.ok {
				t.Fatalf("parseLine(%q) ok = %v, want %v", tt.line, ok, tt.ok)
			}
			if ok && name != "BenchmarkX" {
				t.Errorf("name = %q, want BenchmarkX", name)
			}
		})
	}
}

func TestTrimProcs(t *testing.T) {
	for in, want := range map[string]string{
		"BenchmarkFrame/kit-2":                  "BenchmarkFrame/kit",
		"BenchmarkFrame/kit":                    "BenchmarkFrame/kit",
		"BenchmarkStore/memory/4-ids-16":        "BenchmarkStore/memory/4-ids",
		"BenchmarkEmulatorGenerateSession/100k": "BenchmarkEmulatorGenerateSession/100k",
	} {
		if got := trimProcs(in); got != want {
			t.Errorf("trimProcs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEvaluate(t *testing.T) {
	res, err := parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Frame kit - baseline-identity, CPU at GOMAXPROCS=1":             "MISS", // median 310 - 289 = 21 µs
		"Frame kit - baseline, allocations":                              "MISS", // 541 - 244 = 297
		"Frame kit-frameurl - baseline-identity, CPU at GOMAXPROCS=1":    "PASS", // 305 - 289 = 16 µs
		"Frame kit-frameurl - baseline, allocations":                     "PASS", // 300 - 244 = 56
		"Frame kit / baseline, elapsed":                                  "-",    // recorded only
		"Frame control: baseline + 10 µs of computation - baseline, CPU": "-",
		"FrameParallel kit - baseline, CPU":                              "PASS", // 5 µs
		"FrameParallel kit - baseline, allocations":                      "MISS", // 295
		"FrameParallel kit / baseline, elapsed":                          "-",
		"FrameParallel kit connections, timed run":                       "MISS", // 69 > 64 callers
		"Logout 50/1 sessions":                                           "MISS", // 7
		"Store cookie Add and Take, CPU":                                 "MISS", // median 33 µs > 30 µs (elapsed 24 µs would pass)
		"Store memory bytes per id":                                      "MISS", // 246 > 128
		"Store memory Add to a full host session":                        "-",
		"Store redis Add to a full host session":                         "MISSING", // not in the sample
		"Validate time":                                                  "PASS",    // 1433 ns <= 5 µs
		"Validate allocations":                                           "PASS",    // 1
		"Emulator generate-session, 100k sessions":                       "PASS",    // 0.9
	}
	rows := evaluate(res)
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for _, r := range rows {
		if r.Result != want[r.Check] {
			t.Errorf("%s: %s (%s, goal %s), want %s", r.Check, r.Result, r.Value, r.Goal, want[r.Check])
		}
	}

	for _, r := range rows {
		if r.Check == "Frame kit - baseline, CPU" && !strings.Contains(r.Value, "+10.0 µs beyond the identity read") {
			t.Errorf("the CPU row does not say what the kit adds beyond the identity read: %s", r.Value)
		}
		if strings.HasPrefix(r.Check, "Frame control") && r.Value != "+15.0 µs (305.0 µs / 290.0 µs)" {
			t.Errorf("the control row says %s, want +15.0 µs (305.0 µs / 290.0 µs)", r.Value)
		}
	}

	for _, r := range evaluate(results{}) {
		if r.Result != "MISSING" || r.Value != "n/a" {
			t.Errorf("empty input: %s = %s %s, want n/a MISSING", r.Check, r.Value, r.Result)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var sb strings.Builder
	err := writeTable(&sb, []row{{Check: "a", Value: "1", Goal: "<= 2", Result: "PASS"}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(sb.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "check") || !strings.HasSuffix(lines[1], "PASS") {
		t.Errorf("table = %q", sb.String())
	}
}

// TestConnectionsGoal judges the worst run: any run that opened more
// connections than callers, or closed one, misses.
func TestConnectionsGoal(t *testing.T) {
	line := func(conns, closed int) string {
		return fmt.Sprintf("BenchmarkFrameParallel/kit-2 \t 2000\t 300000 ns/op\t 64.00 callers\t %d closed\t %d conns\t 70.00 warmup-conns\n", closed, conns)
	}
	tests := []struct {
		name  string
		runs  []string
		want  string
		value string
	}{
		{"none opened or closed", []string{line(0, 0), line(0, 0), line(0, 0)}, "PASS", "0 opened, 0 closed"},
		{"up to callers", []string{line(0, 0), line(64, 0), line(0, 0)}, "PASS", "64 opened, 0 closed"},
		{"one run over callers", []string{line(0, 0), line(65, 0), line(0, 0)}, "MISS", "65 opened, 0 closed"},
		{"one run closed one", []string{line(0, 0), line(0, 1), line(0, 0)}, "MISS", "0 opened, 1 closed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := parse(strings.NewReader(strings.Join(tt.runs, "")))
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range evaluate(res) {
				if r.Check != "FrameParallel kit connections, timed run" {
					continue
				}
				if r.Result != tt.want || !strings.HasPrefix(r.Value, tt.value) {
					t.Errorf("%s (%s), want %s (%s)", r.Result, r.Value, tt.want, tt.value)
				}
				return
			}
			t.Fatal("no connections row")
		})
	}
}
