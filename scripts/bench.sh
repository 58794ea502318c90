#!/usr/bin/env bash
# scripts/bench.sh runs embedkit's benchmarks, writes the raw output to
# bench-results/bench.txt, summarises it with benchstat and prints the
# figures the kit is held to, computed from the medians of the runs, each
# with its goal and PASS or MISS (internal/benchratio):
#
#   Frame, FrameParallel   kit / minimal hand-written handler, <= 1.05;
#                          connections to the platform <= concurrent callers
#   Logout                 50 revoked sessions / 1, <= 1.5 (default and
#                          RevokeConcurrency 64)
#   Store/memory           heap bytes per stored id, <= 256
#   Validate               <= 1% of the Frame baseline, <= 1 alloc
#   EmulatorGenerateSession  100k sessions in memory / none, <= 1.10
#
# The Redis store benchmark runs against a private redis-server on
# loopback (or EMBEDKIT_REDIS_ADDR when set) and is skipped without one.
# The whole run takes about four minutes on two cores.
#
# Environment:
#   COUNT      runs of each benchmark (default 6, enough for benchstat)
#   BENCHTIME  -benchtime of each run (default 1s)
#   PROFILE=1  also write a CPU profile and test binary per package to
#              bench-results/ (inspect with go tool pprof -top)
set -euo pipefail
cd "$(dirname "$0")/.."

count="${COUNT:-6}"
benchtime="${BENCHTIME:-1s}"
out="bench-results"
raw="$out/bench.txt"
mkdir -p "$out"
: >"$raw"

step() { printf '\n== %s\n' "$*"; }

# --- a private redis-server on loopback -----------------------------------
tmp="$(mktemp -d)"
redis_pid=""
cleanup() {
	[[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
if command -v redis-server >/dev/null 2>&1 && [[ -z "${EMBEDKIT_REDIS_ADDR:-}" ]]; then
	port=$((20000 + RANDOM % 20000))
	redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
		--dir "$tmp" --daemonize no >"$tmp/redis.log" 2>&1 &
	redis_pid=$!
	for _ in $(seq 50); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
		sleep 0.1
	done
	export EMBEDKIT_REDIS_ADDR="127.0.0.1:$port"
fi
if [[ -z "${EMBEDKIT_REDIS_ADDR:-}" ]]; then
	echo "bench: no redis-server; BenchmarkStore/redis is skipped"
fi

# bench PACKAGE PATTERN [SKIP]: run the benchmarks of one package matching
# PATTERN (and not SKIP), appending to the raw output.
bench() {
	local pkg="$1" pattern="$2" skip="${3:-}"
	local args=(-run '^$' -bench "$pattern" -benchtime "$benchtime" -count "$count" -timeout 30m)
	[[ -n "$skip" ]] && args+=(-skip "$skip")
	if [[ "${PROFILE:-}" == 1 ]]; then
		local name
		name="$(basename "$pkg")"
		args+=(-cpuprofile "$out/$name.cpu" -o "$out/$name.test")
	fi
	step "go test ${args[*]} $pkg"
	go test "${args[@]}" "$pkg" | tee -a "$raw"
}

bench ./middleware '^(BenchmarkFrame|BenchmarkFrameParallel|BenchmarkLogout|BenchmarkLogoutConcurrency64)$'
bench ./adapters/memstore 'BenchmarkStore/memory$' 'BenchmarkStore/memory/.'
bench ./adapters/gorillasession 'BenchmarkStore/cookie$'
bench ./adapters/redisstore 'BenchmarkStore/redis$' 'BenchmarkStore/redis/.'
bench ./embedkit '^BenchmarkValidate$'
bench ./embedkit/emulator '^BenchmarkEmulatorGenerateSession$'

step "benchstat $raw"
go tool benchstat "$raw"

step "machine"
echo "nproc: $(nproc)"
lscpu 2>/dev/null | grep 'Model name' | sed 's/  */ /g' || true
go version

step "goals (medians of $count runs)"
go run ./internal/benchratio "$raw" | tee "$out/ratios.txt"
