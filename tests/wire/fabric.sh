#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# fabric.sh HOSTS MLX4EMU_RUN "EMU OPTIONS" PROGRAM [ARGS...]
# A fabric of HOSTS hosts (2..16): a network namespace per host, each
# with a veth pair to a bridge in a namespace of its own (all made here
# and removed at exit); host i (0 the hub) has 10.77.0.(i+1)/24 and runs
# mlx4emu-run OPTS --addr=10.77.0.(i+1) -- PROGRAM ARGS -i i -N HOSTS
# -H 10.77.0.1 -p PORT, so its InfiniBand port's LID is i+1; its faults
# on the wire, if OPTS sets any, are drawn from seed FABRIC_SEED + i
# (FABRIC_SEED default 1), so that no two hosts drop the same packets.  Every host
# must exit 0 within FABRIC_TIMEOUT seconds (default 150); the hub's
# output is printed last.  A host other than the hub that was killed
# (SIGKILL: the hub's restarts, fabric.c -k) is started again with -J,
# up to FABRIC_RESTARTS times (default 0), its output appended.  The
# veth and bridge drop counts are printed (a datagram lost on the path
# between namespaces is lost nowhere the adapters count).  Skipped (exit 77) where namespaces cannot be made.
set -u
hosts="$1"; run="$2"; opts="$3"; shift 3
timeout_s="${FABRIC_TIMEOUT:-150}"
tag="m4f$$"
br="${tag}br"
dir=$(mktemp -d "${TMPDIR:-/tmp}/fabric.XXXXXX")
cleanup() {
	for pid in ${pids:-}; do
		kill "$pid" 2>/dev/null
	done
	wait
	i=0
	while [ "$i" -lt "$hosts" ]; do
		ip netns del "${tag}h$i" 2>/dev/null
		i=$((i + 1))
	done
	ip netns del "$br" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! command -v ip >/dev/null 2>&1 || ! ip netns add "$br" 2>/dev/null; then
	echo "SKIP: cannot create network namespaces here (needs iproute2 and CAP_SYS_ADMIN)"
	exit 77
fi
if ! ip -n "$br" link add br0 type bridge 2>/dev/null; then
	echo "SKIP: cannot create a bridge here"
	exit 77
fi
ip -n "$br" link set br0 up
ip -n "$br" link set lo up
i=0
while [ "$i" -lt "$hosts" ]; do
	ns="${tag}h$i"
	if ! ip netns add "$ns" ||
	   ! ip -n "$br" link add "p$i" type veth peer name eth0 netns "$ns" 2>/dev/null; then
		echo "SKIP: cannot create a veth pair between namespaces here"
		exit 77
	fi
	ip -n "$br" link set "p$i" master br0 up
	ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev eth0
	ip -n "$ns" link set lo up
	ip -n "$ns" link set eth0 up
	i=$((i + 1))
done

# the hub's TCP port: nothing else listens in these namespaces
port=18515
# host i's process, started again with -J after a SIGKILL (exit 137 of
# timeout), at most FABRIC_RESTARTS times; a TERM ends the one running
run_host() {
	i=$1 again="" n=0
	shift
	trap 'kill "$child" 2>/dev/null; exit 1' TERM
	while :; do
		# shellcheck disable=SC2086
		ip netns exec "${tag}h$i" timeout -k 5 "$timeout_s" "$run" $opts \
			--addr="10.77.0.$((i + 1))" --wire-seed=$((${FABRIC_SEED:-1} + i)) -- "$@" -i "$i" -N "$hosts" -H 10.77.0.1 -p "$port" $again \
			>>"$dir/host$i.out" 2>&1 &
		child=$!
		wait "$child"
		rc=$?
		if [ "$rc" -ne 137 ] || [ "$i" -eq 0 ] || [ "$n" -ge "${FABRIC_RESTARTS:-0}" ]; then
			return "$rc"
		fi
		n=$((n + 1)) again=-J
		echo "--- host $i killed, started again ($n)" >>"$dir/host$i.out"
	done
}
pids=""
i=$((hosts - 1))
while [ "$i" -ge 0 ]; do
	run_host "$i" "$@" 2>>"$dir/host$i.out" &
	pids="$pids $!"
	i=$((i - 1))
done
failed=0
i=$((hosts - 1))
for pid in $pids; do
	if ! wait "$pid"; then
		echo "--- host $i failed:"
		cat "$dir/host$i.out"
		failed=$((failed + 1))
	fi
	i=$((i - 1))
done
pids=""
# drops on the path between namespaces: the bridge ports' counters
drops=0
i=0
while [ "$i" -lt "$hosts" ]; do
	for f in rx_dropped tx_dropped; do
		n=$(ip netns exec "$br" cat "/sys/class/net/p$i/statistics/$f" 2>/dev/null || echo 0)
		drops=$((drops + n))
	done
	i=$((i + 1))
done
echo "--- packets dropped on the path between namespaces (veth, bridge): $drops"
echo "--- hub:"
cat "$dir/host0.out"
if [ "$failed" -ne 0 ]; then
	echo "FAIL: $failed of $hosts hosts failed: $*"
	exit 1
fi
grep -q "^PASS: " "$dir/host0.out" || { echo "FAIL: the hub gave no verdict"; exit 1; }
