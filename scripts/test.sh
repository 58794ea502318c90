#!/usr/bin/env bash
# scripts/test.sh runs every check and test of embedkit: formatting, stale
# generated templates, go vet, staticcheck, the race-enabled test suite and
# a short run of every fuzz target.
#
# On a fresh Debian machine it first installs what the tests need
# (redis-server and redis-tools for the Redis store, which is tested on
# a single server and on a three-node Redis Cluster, chromium for the
# browser tests, poppler-utils to open exported PDFs, nodejs and npm for
# the host script, and TypeScript from the npm registry to type-check its
# declarations)
# and starts a private redis-server and a private three-node Redis Cluster
# on loopback for the run.
#
# Environment:
#   FUZZ_EXECS  inputs each fuzz target runs (default 50000; 0 skips fuzzing)
#   FUZZ_LIMIT  seconds a fuzz target may take to run them (default 180)
#   SKIP_INSTALL=1  do not apt-get anything (a test that needs a missing
#                   tool then fails and says what to install; none skips)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh


# --- tools the tests need -------------------------------------------------
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v redis-cli >/dev/null 2>&1 || missing+=(redis-tools)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})) && [[ "${SKIP_INSTALL:-}" != 1 ]]; then
	step "installing ${missing[*]}"
	sudo=""
	[[ "$(id -u)" == 0 ]] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# TypeScript, pinned, into a cache of the clone (ignored by git), for the
# test that type-checks the host script's declarations.
tsc_version="5.9.3"
tsc_dir=".cache/typescript-$tsc_version"
if [[ -z "${EMBEDKIT_TSC:-}" ]]; then
	if [[ ! -x "$tsc_dir/node_modules/.bin/tsc" ]] && [[ "${SKIP_INSTALL:-}" != 1 ]] && command -v npm >/dev/null 2>&1; then
		step "installing typescript@$tsc_version"
		npm install --silent --no-audit --no-fund --prefix "$tsc_dir" "typescript@$tsc_version" >/dev/null
	fi
	if [[ -x "$tsc_dir/node_modules/.bin/tsc" ]]; then
		export EMBEDKIT_TSC="$PWD/$tsc_dir/node_modules/.bin/tsc"
	fi
fi

# --- a private redis-server, and a three-node Redis Cluster, on loopback ---
start_redis
start_redis_cluster
if command -v chromium >/dev/null 2>&1 && [[ -z "${EMBEDKIT_CHROMIUM:-}" ]]; then
	export EMBEDKIT_CHROMIUM="$(command -v chromium)"
fi

# --- checks ---------------------------------------------------------------
step "gofmt"
unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
	echo "gofmt: these files need formatting:"; echo "$unformatted"; exit 1
fi

step "templ generate (generated files must be committed and current)"
before="$(find . -name '*_templ.go' -type f -exec sha256sum {} + | sort)"
go tool templ generate -path . >/dev/null
after="$(find . -name '*_templ.go' -type f -exec sha256sum {} + | sort)"
if [[ "$before" != "$after" ]]; then
	echo "templ: generated files were stale; run 'go tool templ generate' and commit the result"
	exit 1
fi

step "host page generate (the served script and its types must be current)"
# middleware/hostscript.js, hostscript.d.ts, hostpage/src/version.js and rules.js
# are generated from hostpage/ by internal/hostbuild (esbuild's Go API).
host_generated=(middleware/hostscript.js middleware/hostscript.d.ts hostpage/src/version.js hostpage/src/rules.js)
before="$(sha256sum "${host_generated[@]}")"
go generate ./middleware
after="$(sha256sum "${host_generated[@]}")"
if [[ "$before" != "$after" ]]; then
	echo "hostbuild: generated files were stale; run 'go generate ./middleware' and commit the result"
	exit 1
fi
echo ok

step "browser protocol contract (testdata/embed-protocol.json)"
# The committed copy is what a user's clone tests against; beside the
# project's shared notes it must equal them.
if [[ -f ../shared/embed-protocol.json ]] && ! cmp -s testdata/embed-protocol.json ../shared/embed-protocol.json; then
	echo "testdata/embed-protocol.json differs from ../shared/embed-protocol.json: copy it again"
	exit 1
fi
echo ok

step "go vet"
go vet ./...

step "staticcheck"
go tool staticcheck ./...

step "go test -race"
go test -race -count=1 -timeout 20m ./...

# --- fuzzing: every Fuzz target, briefly, from its committed corpus -------
# Each target runs a number of inputs, not a length of time: Go 1.26's fuzz
# coordinator can fail a duration-bounded run (-fuzztime=10s) with a bare
# "context deadline exceeded" when a worker is slow to stop at the end of
# the window, with no failing input and nothing found (go.dev/issue/75804,
# fixed in Go 1.27). A count has no deadline to race. The count is sized so
# the slowest target takes about 10 s on two cores.
#
# `go test -timeout` does not bound a fuzz run, so `timeout` does: a target
# that cannot run its inputs in FUZZ_LIMIT seconds fails, because a fuzz
# target that does not run checks nothing.
#
# -fuzzminimizetime bounds the minimisation of each new interesting input:
# by default Go spends up to 60 s shrinking one, counting none of those
# runs, so a target whose inputs are large (a whole fixture) spent a short
# run minimising instead of exploring.
fuzz_execs="${FUZZ_EXECS:-50000}"
fuzz_limit="${FUZZ_LIMIT:-180}"
if [[ "$fuzz_execs" != 0 ]]; then
	step "fuzz ($fuzz_execs inputs each, at most ${fuzz_limit}s a target)"
	# GNU coreutils' timeout; macOS has it as gtimeout (brew install coreutils).
	timeout_cmd="$(command -v timeout || command -v gtimeout || true)"
	if [[ -z "$timeout_cmd" ]]; then
		echo "fuzz: needs GNU coreutils' timeout (Debian: coreutils; macOS: brew install coreutils)"
		exit 1
	fi
	while IFS=: read -r file name; do
		pkg="./$(dirname "$file")"
		echo "-- $pkg $name"
		rc=0
		out="$("$timeout_cmd" --kill-after=10s "${fuzz_limit}s" \
			go test -run='^$' -fuzz="^${name}\$" -fuzztime="${fuzz_execs}x" -fuzzminimizetime=2000x "$pkg" 2>&1)" || rc=$?
		if ((rc == 124 || rc == 137)); then
			echo "$out" | tail -n 3
			echo "fuzz: $name did not run $fuzz_execs inputs in ${fuzz_limit}s; it does not explore"
			exit 1
		elif ((rc != 0)); then
			echo "$out"
			exit 1
		fi
		echo "$out" | tail -n 3
	done < <(grep -rhoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . -H |
		sed -E 's/^\.\/(.*):func (Fuzz[A-Za-z0-9_]+)$/\1:\2/' | sort -u)
fi

step "all checks passed"
