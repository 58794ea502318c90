# scripts/lib.sh: shell functions shared by test.sh and bench.sh. Source it
# from a script that runs with `set -euo pipefail`.

# step prints a section heading.
step() { printf '\n== %s\n' "$*"; }

# Everything listed in cleanup_paths is removed, and a redis-server started
# by start_redis stopped, when the script exits.
cleanup_paths=()
redis_pid=""
on_exit() {
	if [[ -n "$redis_pid" ]]; then kill "$redis_pid" 2>/dev/null || true; fi
	if ((${#cleanup_paths[@]})); then rm -rf "${cleanup_paths[@]}"; fi
}
trap on_exit EXIT

# start_redis starts a private redis-server on a loopback port for the
# rest of the script and exports EMBEDKIT_REDIS_ADDR, unless that is set
# already or no redis-server is installed (the Go tests then start their
# own, or fail saying what to install).
start_redis() {
	if [[ -n "${EMBEDKIT_REDIS_ADDR:-}" ]] || ! command -v redis-server >/dev/null 2>&1; then
		return 0
	fi
	local dir port
	dir="$(mktemp -d)"
	cleanup_paths+=("$dir")
	port=$((20000 + RANDOM % 20000))
	redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
		--dir "$dir" --daemonize no >"$dir/redis.log" 2>&1 &
	redis_pid=$!
	for _ in $(seq 50); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
		sleep 0.1
	done
	export EMBEDKIT_REDIS_ADDR="127.0.0.1:$port"
}
