# scripts/lib.sh: shell functions shared by test.sh and bench.sh. Source it
# from a script that runs with `set -euo pipefail`.

# step prints a section heading.
# step starts a step of the script's output; it says how long the script
# has run, so a slow step shows in CI's log.
step() { printf '\n== %s (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

# Everything listed in cleanup_paths is removed, and the redis-servers
# started by start_redis and start_redis_cluster stopped, when the script
# exits.
cleanup_paths=()
redis_pids=()
on_exit() {
	if ((${#redis_pids[@]})); then kill "${redis_pids[@]}" 2>/dev/null || true; fi
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
	redis_node
	export EMBEDKIT_REDIS_ADDR="127.0.0.1:$node_port"
}

# redis_node starts a redis-server on a free loopback port, with any
# arguments given, waits until it listens, and sets node_port to its port
# (it runs in this shell, not in a $(...), so that the server's pid and
# folder are kept for on_exit). A cluster node also listens on its port +
# 10000 (the cluster bus), so every port is taken from 20000-32767.
redis_node() {
	local dir port pid attempt i
	node_port=""
	# Ports below the kernel's ephemeral range (32768 and up on Linux), for
	# the node and its cluster bus alike: an outgoing connection of any
	# process may hold an ephemeral port, where no connect test sees it.
	# A port taken between the test and redis-server's bind is tried again
	# elsewhere.
	for attempt in 1 2 3 4 5; do
		dir="$(mktemp -d)" # a fresh one: a node that failed may have written nodes.conf
		cleanup_paths+=("$dir")
		while :; do
			port=$((20000 + RANDOM % 2768))
			if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null &&
				! (exec 3<>"/dev/tcp/127.0.0.1/$((port + 10000))") 2>/dev/null; then
				break
			fi
		done
		redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no \
			--dir "$dir" --daemonize no "$@" >"$dir/redis.log" 2>&1 &
		pid=$!
		# A loaded machine can take a while to start it; not listening
		# after 60 s is a failure, said with the server's log.
		for i in $(seq 600); do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				redis_pids+=("$pid")
				node_port="$port"
				return 0
			fi
			if ! kill -0 "$pid" 2>/dev/null; then
				break
			fi
			sleep 0.1
		done
		if kill -0 "$pid" 2>/dev/null || ! grep -q "Address already in use" "$dir/redis.log"; then
			kill "$pid" 2>/dev/null || true
			echo "redis-server did not listen on 127.0.0.1:$port within 60 s; its log:" >&2
			cat "$dir/redis.log" >&2
			exit 1
		fi
	done
	echo "redis-server found no free port pair in 5 tries; its last log:" >&2
	cat "$dir/redis.log" >&2
	exit 1
}

# start_redis_cluster starts a three-node Redis Cluster on loopback for the
# rest of the script (three primaries, no replicas, every slot served) and
# exports EMBEDKIT_REDIS_CLUSTER_ADDRS, unless that is set already or
# redis-server or redis-cli is missing (the Go tests then start their own,
# or fail saying what to install).
start_redis_cluster() {
	if [[ -n "${EMBEDKIT_REDIS_CLUSTER_ADDRS:-}" ]] || ! command -v redis-server >/dev/null 2>&1 ||
		! command -v redis-cli >/dev/null 2>&1; then
		return 0
	fi
	local addrs=()
	for _ in 1 2 3; do
		redis_node --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000
		addrs+=("127.0.0.1:$node_port")
	done
	redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes >/dev/null
	local a i
	for a in "${addrs[@]}"; do
		for i in $(seq 600); do
			if redis-cli -h 127.0.0.1 -p "${a#*:}" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; then break; fi
			if ((i == 600)); then
				echo "redis cluster node $a did not report cluster_state:ok within 60 s" >&2
				exit 1
			fi
			sleep 0.1
		done
	done
	EMBEDKIT_REDIS_CLUSTER_ADDRS="$(IFS=,; echo "${addrs[*]}")"
	export EMBEDKIT_REDIS_CLUSTER_ADDRS
}
