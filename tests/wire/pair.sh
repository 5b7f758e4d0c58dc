#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pair.sh MLX4EMU_RUN "EMU OPTIONS" PROGRAM [ARGS...]
# Runs PROGRAM as a server and as a client (ibv_*_pingpong and perftest
# conventions: -p TCP port, server without a host, client with one), two
# processes, each its own software adapter.  Both must exit 0 within
# PAIR_TIMEOUT seconds (default 60).  PAIR_SERVER_OPTS / PAIR_CLIENT_OPTS
# add launcher options to one side only; PAIR_HOST is the host the client
# connects to (default 127.0.0.1); PAIR_SERVER_WRAP / PAIR_CLIENT_WRAP
# prefix a side's command (e.g. "ip netns exec NS"); PAIR_WIRE_SEGMENT=auto
# puts both adapters on a wire segment of their own (MLX4EMU_WIRE_SEGMENT
# from this process's ID), so that floods of parallel tests do not meet.
set -u
run="$1"; opts="$2"; shift 2
timeout_s="${PAIR_TIMEOUT:-60}"
host="${PAIR_HOST:-127.0.0.1}"
dir=$(mktemp -d "${TMPDIR:-/tmp}/pair.XXXXXX")
trap 'rm -rf "$dir"' EXIT

if [ "${PAIR_WIRE_SEGMENT:-}" = auto ]; then
	MLX4EMU_WIRE_SEGMENT=$((1 + $$ % 16777215)); export MLX4EMU_WIRE_SEGMENT
fi

# A TCP port nobody holds, the kernel's pick (free_tcp_port.py): suites
# run pairs in parallel.
pick_port() {
	port=$(python3 "$(dirname "$0")/free_tcp_port.py")
}

# True when the socket listening on $port is the server's started here
# (a process under $server): another pair's server may listen on the same
# port, and the client would then reach it and both pairs fail. Where ss
# names no process (another user's socket), any listener counts.
ours_listening() {
	listeners=$(${PAIR_SERVER_WRAP:-} ss -Hltnp "sport = :$port" 2>/dev/null)
	[ -n "$listeners" ] || return 1
	pids=$(printf '%s\n' "$listeners" | grep -o 'pid=[0-9]*' | cut -d= -f2)
	[ -n "$pids" ] || return 0
	for pid in $pids; do
		while [ "${pid:-1}" -gt 1 ]; do
			[ "$pid" = "$server" ] && return 0
			pid=$(sed 's/.*) . \([0-9]*\).*/\1/' "/proc/$pid/stat" 2>/dev/null)
		done
	done
	return 1
}

# Starts the server and waits until it listens (at most 20 s).  Fails when
# the server exits first: another run may have bound the port between the
# kernel's pick and the server's bind.
start_server() {
	# shellcheck disable=SC2086
	${PAIR_SERVER_WRAP:-} timeout -k 5 "$timeout_s" "$run" $opts ${PAIR_SERVER_OPTS:-} -- \
		"$@" -p "$port" >"$dir/server.out" 2>&1 &
	server=$!
	tries=0
	while [ $tries -lt 200 ]; do
		ours_listening && return 0
		kill -0 "$server" 2>/dev/null || return 1
		sleep 0.1; tries=$((tries + 1))
	done
	return 0
}

attempt=1
pick_port
until start_server "$@" || [ $attempt -ge 3 ]; do
	wait "$server"
	echo "--- server exit $? before listening on port $port; another port:"
	cat "$dir/server.out"
	attempt=$((attempt + 1))
	pick_port
done
# shellcheck disable=SC2086
${PAIR_CLIENT_WRAP:-} timeout -k 5 "$timeout_s" "$run" $opts ${PAIR_CLIENT_OPTS:-} -- \
	"$@" -p "$port" "$host" >"$dir/client.out" 2>&1
crc=$?
wait "$server"
src=$?
echo "--- server (exit $src):"; cat "$dir/server.out"
echo "--- client (exit $crc):"; cat "$dir/client.out"
if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ]; then
	echo "FAIL: $* : server exit $src, client exit $crc"
	exit 1
fi
echo "PASS: $*"
