#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# trust.sh MLX4EMU_RUN "EMU OPTIONS" VICTIM FORGER inproc|pair [GIDX]
# A local attacker against RC QPs of the software device: the victim
# (trust_victim.c) runs as the calling user (root in CI), in one process
# (inproc) or as a server and a client (pair); the forger (forger.c) runs
# as nobody (setpriv) with the victims' QPNs, rkeys, VAs and live PSNs
# handed to it, and sends them forged packets.  The victims check that
# nothing reached them and that their traffic was not disturbed.  Skipped
# (exit 77) when the caller cannot become nobody.
set -u
run="$1"; opts="$2"; victim="$3"; forger="$4"; mode="$5"; gidx="${6:-}"
g=""; [ -n "$gidx" ] && g="-g $gidx"
. "$(dirname "$0")/as_nobody.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/trust.XXXXXX")
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
chmod 755 "$dir"
mkdir "$dir/x"
chown "nobody:$nobody_group" "$dir/x"
# the build tree may not be reachable by nobody
cp "$forger" "$dir/forger"
chmod 755 "$dir/forger"

# the number of targets published (target.ROLE, renamed into place whole)
published() {
	k=0
	for f in "$dir"/target.*; do
		case "$f" in *.tmp) ;; *) [ -e "$f" ] && k=$((k + 1)) ;; esac
	done
	echo $k
}

wait_targets() {
	n=0
	while [ "$(published)" -lt "$1" ]; do
		n=$((n + 1))
		if [ $n -gt 300 ]; then
			echo "FAIL: the victims did not publish their targets within 30 s"
			return 1
		fi
		sleep 0.1
	done
}

if [ "$mode" = inproc ]; then
	# shellcheck disable=SC2086
	timeout -k 5 150 "$run" $opts -- "$victim" -m inproc -d "$dir" $g \
		>"$dir/victim.out" 2>&1 &
	v=$!; pids="$v"
	wait_targets 2 || exit 1
else
	port=$(python3 "$(dirname "$0")/free_tcp_port.py")
	# shellcheck disable=SC2086
	timeout -k 5 150 "$run" $opts -- "$victim" -m server -d "$dir" -p "$port" $g \
		>"$dir/server.out" 2>&1 &
	s=$!; pids="$s"
	# shellcheck disable=SC2086
	timeout -k 5 150 "$run" $opts -- "$victim" -m client -d "$dir" -p "$port" $g \
		127.0.0.1 >"$dir/client.out" 2>&1 &
	v=$!; pids="$s $v"
	wait_targets 2 || exit 1
fi
echo "--- targets handed to the forger:"; cat "$dir"/target.*
$as_nobody "$dir/forger" "$dir/x/result" "$dir" >"$dir/forger.out" 2>&1
frc=$?
echo "--- forger (exit $frc, as nobody):"; cat "$dir/forger.out"; cat "$dir/x/result" 2>/dev/null
rc=0
wait "$v"; vrc=$?
if [ "$mode" = inproc ]; then
	echo "--- victim (exit $vrc):"; cat "$dir/victim.out"
else
	wait "$s"; src=$?
	echo "--- server (exit $src):"; cat "$dir/server.out"
	echo "--- client (exit $vrc):"; cat "$dir/client.out"
	[ "$src" -eq 0 ] || rc=1
fi
pids=""
[ "$vrc" -eq 0 ] || rc=1
[ "$frc" -eq 0 ] || rc=1
if [ $rc -ne 0 ]; then echo "FAIL: trust $mode $opts"; exit 1; fi
echo "PASS: trust $mode $opts"
