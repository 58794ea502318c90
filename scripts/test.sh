#!/usr/bin/env bash
# scripts/test.sh runs every check and test of embedkit: formatting, stale
# generated templates, go vet, staticcheck, the race-enabled test suite and
# a short run of every fuzz target.
#
# On a fresh Debian machine it first installs what the tests need
# (redis-server for the Redis store, chromium for the browser tests,
# poppler-utils to open exported PDFs, nodejs and npm for the host script,
# and TypeScript from the npm registry to type-check its declarations)
# and starts a private redis-server on loopback for the run.
#
# Environment:
#   FUZZTIME   how long each fuzz target runs (default 10s; 0 skips fuzzing)
#   SKIP_INSTALL=1  do not apt-get anything (a test that needs a missing
#                   tool then fails and says what to install; none skips)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh


# --- tools the tests need -------------------------------------------------
missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
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

# --- a private redis-server on loopback -----------------------------------
start_redis
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
# -fuzzminimizetime bounds the minimisation of each new interesting input:
# by default Go spends up to 60 s shrinking one, counting none of those
# runs, so a target whose inputs are large (a whole fixture) spent the
# short run minimising instead of exploring (11 executions in 10 s). A
# target that still runs fewer than min_execs inputs fails: a fuzz target
# that does not run checks nothing.
fuzztime="${FUZZTIME:-10s}"
min_execs="${FUZZ_MIN_EXECS:-1000}"
if [[ "$fuzztime" != 0 ]]; then
	step "fuzz ($fuzztime each, at least $min_execs inputs)"
	while IFS=: read -r file name; do
		pkg="./$(dirname "$file")"
		echo "-- $pkg $name"
		corpus="$pkg/testdata/fuzz/$name"
		before="$(ls -1 "$corpus" 2>/dev/null || true)"
		for attempt in 1 2; do
			if out="$(go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" -fuzzminimizetime=2000x "$pkg" 2>&1)"; then
				break
			fi
			# Go 1.26's fuzz coordinator can fail a target with a bare
			# "context deadline exceeded" at the end of a -fuzztime window
			# when a worker is slow to stop (go.dev/issue/75804, fixed in
			# Go 1.27). That failure wrote no failing input and found
			# nothing; it gets one more run. A failing input written to
			# the corpus, any other failure, or the race twice in a row
			# fails the command.
			if ((attempt == 1)) &&
				[[ "$(ls -1 "$corpus" 2>/dev/null || true)" == "$before" ]] &&
				echo "$out" | grep -qE '^[[:space:]]*context deadline exceeded$' &&
				! echo "$out" | grep -q 'Failing input written'; then
				echo "$out" | tail -n 4
				echo "fuzz: $name stopped with the toolchain's deadline race and no failing input; running it once more"
				continue
			fi
			echo "$out"
			exit 1
		done
		echo "$out" | tail -n 3
		execs="$(echo "$out" | grep -oE 'execs: [0-9]+' | tail -n 1 | grep -oE '[0-9]+' || echo 0)"
		if ((execs < min_execs)); then
			echo "fuzz: $name ran only $execs inputs in $fuzztime; it does not explore"
			exit 1
		fi
	done < <(grep -rhoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . -H |
		sed -E 's/^\.\/(.*):func (Fuzz[A-Za-z0-9_]+)$/\1:\2/' | sort -u)
fi

step "all checks passed"
