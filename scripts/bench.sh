#!/usr/bin/env bash
# scripts/bench.sh runs embedkit's benchmarks, writes the raw output to
# bench-results/bench.txt, summarises it with benchstat and prints the
# figures the kit is held to, computed from the medians of the runs, each
# with its goal and PASS or MISS (internal/benchratio):
#
#   Frame                  at GOMAXPROCS=1, the FrameHandler load (kit)
#                          and the README's page around FrameURL
#                          (kit-frameurl): CPU time minus that of a
#                          hand-written handler that reads the viewer
#                          from the same cookie, <= 20 µs per load, and
#                          allocations added to the minimal hand-written
#                          handler's <= 80 (process CPU time hardly moves
#                          with other load on the machine)
#   FrameParallel          64 callers: kit CPU time minus the minimal
#                          hand-written handler's, <= 25 µs per load,
#                          allocations added <= 80;
#                          after a warm-up, connections opened to the
#                          platform <= concurrent callers and none
#                          closed, in every run; elapsed time recorded;
#                          the control, what the same measure charges a
#                          hand-written handler for 10 µs of computation,
#                          recorded
#   Logout                 50 revoked sessions / 1, <= 1.5
#   Store/cookie           Add and Take through the request's cookie, CPU
#                          time <= 30 µs (elapsed time recorded)
#   Store/memory           heap bytes per stored id, <= 128
#   AddToFullKey           Add to a host session at the bound of records,
#                          memory and Redis store, recorded
#   Validate               <= 5 µs ("well under 10 µs"), <= 5 allocs
#   EmulatorGenerateSession  100k sessions in memory / none, <= 1.10
#
# Then, once, BenchmarkTimeToDashboard (internal/ttd): the time from opening
# a host page to the frame's ready event and to dashboard-loaded, in
# headless Chromium, for the ways of embedding (the README's PageFrame
# page, the same page with FrameURL or after 103 Early Hints, FrameHandler
# iframe, SessionHandler single-page app, the React component, and the
# hand-written pages: best, and flush, which sends its head before it
# mints), with the host and the platform each behind 40 ms round trips; it
# prints its table and x-floor (the README's default over flush, median
# time to ready, cold and warm, goal <= 1.00) to bench-results/ttd.txt. It
# needs chromium (EMBEDKIT_CHROMIUM or PATH) and takes about three minutes.
#
# Then BenchmarkRenewal (internal/ttd), in the same setting: how long the
# README's page shows no dashboard while its frame's session is renewed
# (in place ahead of the trust's end, in place after it, and by loading
# the frame again on a platform without renewal in place), and the mints
# each renewal costs, to bench-results/renewal.txt; about three minutes.
#
# Then BenchmarkDashboardSwitch (internal/ttd), in the same setting: the
# time from a single-page app's target change to the new dashboard's
# dashboard-loaded, in place (show(): the platform's navigate action, no
# new session), with a new frame, and on a fresh page load of the second
# dashboard, with the mints of each; it prints x-fresh (in place over new
# frame, goal <= 0.35) to bench-results/switch.txt; about a minute.
#
# The Redis store benchmarks run against a private redis-server on
# loopback (or EMBEDKIT_REDIS_ADDR when set) and fail, saying what to
# install, without one.
# The whole run takes six to seven minutes on two cores.
#
# Environment:
#   COUNT      runs of each benchmark (default 6, enough for benchstat)
#   BENCHTIME  -benchtime of each run (default 1s), but for the frame
#              benchmarks
#   FRAME_LOADS  iframe loads in each frame benchmark run (default 20000x):
#              a fixed count, the same for the kit and its baselines,
#              because the in-process emulator keeps every session it
#              mints and the garbage collector's work per load grows with
#              them; with -benchtime 1s the faster baseline would make
#              more loads and pay more of it
#   TTD_RUNS   cold loads of each page in BenchmarkTimeToDashboard, each
#              followed by a warm reload (default 10)
#   RENEWAL_RUNS  renewals of each kind in BenchmarkRenewal (default 8)
#   SWITCH_RUNS   switches of each kind in BenchmarkDashboardSwitch (default 10)
#   TTD=0      skip BenchmarkTimeToDashboard, BenchmarkRenewal and
#              BenchmarkDashboardSwitch
#   PROFILE=1  also write the last round's CPU profile of each line below
#              and the test binary of each package to bench-results/
#              (NAME.BENCHMARKS.cpu, NAME.test; inspect with
#              go tool pprof -top NAME.test NAME.BENCHMARKS.cpu)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

count="${COUNT:-6}"
benchtime="${BENCHTIME:-1s}"
frame_loads="${FRAME_LOADS:-20000x}"
out="bench-results"
raw="$out/bench.txt"
mkdir -p "$out"
: >"$raw"

tmp="$(mktemp -d)"
cleanup_paths+=("$tmp")

# --- a private redis-server on loopback -----------------------------------
start_redis

# The benchmarks, one package a line: package, -bench pattern and, when
# needed, a -skip pattern (sub-benchmarks the goals do not use).
benchmarks=(
	"./middleware ^BenchmarkFrame$"
	"./middleware ^BenchmarkFrameParallel$"
	"./middleware ^BenchmarkLogout$"
	"./adapters/memstore BenchmarkStore/memory$ BenchmarkStore/memory/."
	"./adapters/memstore ^BenchmarkAddToFullKey$"
	"./adapters/gorillasession BenchmarkStore/cookie$"
	"./adapters/redisstore BenchmarkStore/redis$ BenchmarkStore/redis/."
	"./adapters/redisstore ^BenchmarkAddToFullKey$"
	"./embedkit ^BenchmarkValidate$"
	"./embedkit/emulator ^BenchmarkEmulatorGenerateSession$"
)

# Each package's test binary is built once, then every benchmark runs once
# per round, COUNT rounds: a kit and its baseline run side by side in every
# round, so that load from elsewhere on the machine, which comes and goes,
# weighs on both alike rather than on all the runs of one of them.
step "building test binaries"
for entry in "${benchmarks[@]}"; do
	read -r pkg _ <<<"$entry"
	bin="$tmp/$(echo "${pkg#./}" | tr / _).test"
	[[ -e "$bin" ]] || go test -c -o "$bin" "$pkg"
done

for round in $(seq "$count"); do
	step "round $round of $count"
	for entry in "${benchmarks[@]}"; do
		read -r pkg pattern skip <<<"$entry"
		name="$(echo "${pkg#./}" | tr / _)"
		bt="$benchtime"
		[[ "$pattern" == *BenchmarkFrame* ]] && bt="$frame_loads"
		args=(-test.run '^$' -test.bench "$pattern" -test.benchtime "$bt" -test.count 1 -test.timeout 30m -test.benchmem)
		[[ -n "$skip" ]] && args+=(-test.skip "$skip")
		# BenchmarkFrame at GOMAXPROCS=1: no idle runtime thread spins
		# while a load's goroutines pass the round trip between them, so
		# its CPU time is the work done (internal/benchratio).
		[[ "$pattern" == '^BenchmarkFrame$' ]] && args+=(-test.cpu 1)
		if [[ "${PROFILE:-}" == 1 && "$round" == "$count" ]]; then
			# One profile per entry: a package may have several.
			tag="$(echo "$pattern" | tr -cd 'A-Za-z')"
			cp "$tmp/$name.test" "$out/$name.test"
			args+=(-test.cpuprofile "$PWD/$out/$name.$tag.cpu")
		fi
		# Test binaries run in their package directory, as under go test.
		(cd "$pkg" && "$tmp/$name.test" "${args[@]}") | tee -a "$raw"
	done
done

step "benchstat $raw"
go tool benchstat "$raw"

step "machine"
echo "nproc: $(nproc)"
lscpu 2>/dev/null | grep 'Model name' | sed 's/  */ /g' || true
go version

step "goals (medians of $count runs)"
go run ./internal/benchratio "$raw" | tee "$out/ratios.txt"

if [[ "${TTD:-1}" != 0 ]]; then
	step "time to dashboard (BenchmarkTimeToDashboard, ${TTD_RUNS:-10} runs of each page)"
	go test -c -o "$tmp/ttd.test" ./internal/ttd
	(cd internal/ttd && "$tmp/ttd.test" -test.run '^$' -test.bench '^BenchmarkTimeToDashboard$' \
		-test.benchtime 1x -test.count 1 -test.timeout 15m -ttd.runs "${TTD_RUNS:-10}") | tee "$out/ttd.txt"
	step "renewal (BenchmarkRenewal, ${RENEWAL_RUNS:-8} renewals of each kind)"
	(cd internal/ttd && "$tmp/ttd.test" -test.run '^$' -test.bench '^BenchmarkRenewal$' \
		-test.benchtime 1x -test.count 1 -test.timeout 15m -ttd.renewals "${RENEWAL_RUNS:-8}") | tee "$out/renewal.txt"
	step "dashboard switch (BenchmarkDashboardSwitch, ${SWITCH_RUNS:-10} switches of each kind)"
	(cd internal/ttd && "$tmp/ttd.test" -test.run '^$' -test.bench '^BenchmarkDashboardSwitch$' \
		-test.benchtime 1x -test.count 1 -test.timeout 15m -ttd.switches "${SWITCH_RUNS:-10}") | tee "$out/switch.txt"
fi
