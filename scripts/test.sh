#!/usr/bin/env bash
# scripts/test.sh runs every check and test of embedkit: formatting, stale
# generated templates, go vet, staticcheck, the race-enabled test suite and
# a short run of every fuzz target.
#
# On a fresh Debian machine it first installs what the tests need
# (redis-server for the Redis store, chromium for the browser tests,
# poppler-utils to open exported PDFs, nodejs for the host script) and
# starts a private redis-server on loopback for the run.
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
if ((${#missing[@]})) && [[ "${SKIP_INSTALL:-}" != 1 ]]; then
	step "installing ${missing[*]}"
	sudo=""
	[[ "$(id -u)" == 0 ]] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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

step "go vet"
go vet ./...

step "staticcheck"
go tool staticcheck ./...

step "go test -race"
go test -race -count=1 -timeout 20m ./...

# --- fuzzing: every Fuzz target, briefly, from its committed corpus -------
fuzztime="${FUZZTIME:-10s}"
if [[ "$fuzztime" != 0 ]]; then
	step "fuzz ($fuzztime each)"
	while IFS=: read -r file name; do
		pkg="./$(dirname "$file")"
		echo "-- $pkg $name"
		go test -run='^$' -fuzz="^${name}\$" -fuzztime="$fuzztime" "$pkg"
	done < <(grep -rhoE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+' . -H |
		sed -E 's/^\.\/(.*):func (Fuzz[A-Za-z0-9_]+)$/\1:\2/' | sort -u)
fi

step "all checks passed"
