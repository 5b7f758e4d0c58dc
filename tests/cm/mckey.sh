#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# mckey.sh MLX4EMU_RUN "EMU OPTIONS"
# Stock mckey (rdmacm-utils) in three processes, each its own adapter on
# a wire segment of this run's own: two receivers join 224.0.1.N through
# rdma_join_multicast and wait for all 20 datagrams, then a sender joins
# and sends them.  Each receiver exits 0 only once it has received every
# one (a lost datagram leaves it waiting until the time limit); all three
# must exit 0.  (stdbuf: the receivers say at once that they joined.)
set -u
run="$1"; opts="$2"
dir=$(mktemp -d "${TMPDIR:-/tmp}/mckey.XXXXXX")
pids=""
trap 'for p in $pids; do kill $p 2>/dev/null; done; [ -n "${MCKEY_KEEP:-}" ] || rm -rf "$dir"' EXIT
rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
net="127.$((20 + $(rand) % 200)).$((1 + $(rand) % 190))"
group="224.0.1.$((1 + $(rand) % 250))"
MLX4EMU_WIRE_SEGMENT=$((1 + $$ % 16777215)); export MLX4EMU_WIRE_SEGMENT
fail() { echo "FAIL: $*"; exit 1; }

for r in 1 2; do
	# shellcheck disable=SC2086
	timeout -k 5 60 "$run" $opts --addr="$net.$r" -- stdbuf -oL mckey -m "$group" -b "$net.$r" -C 20 \
		>"$dir/recv$r.out" 2>&1 &
	pids="$pids $!"
done
# the receivers have joined (their QPs attached) before the sender sends
for r in 1 2; do
	i=0
	while [ $i -lt 200 ] && ! grep -q "receiving data transfers" "$dir/recv$r.out"; do
		i=$((i + 1)); sleep 0.1
	done
done
# shellcheck disable=SC2086
timeout -k 5 60 "$run" $opts --addr="$net.3" -- mckey -m "$group" -b "$net.3" -s -C 20 \
	>"$dir/send.out" 2>&1
src=$?
rc=0
for p in $pids; do wait "$p" || rc=1; done
pids=""
for f in recv1 recv2 send; do echo "--- $f:"; cat "$dir/$f.out"; done
[ $src -eq 0 ] || fail "sender exit $src"
[ $rc -eq 0 ] || fail "a receiver did not receive every datagram"
for f in recv1 recv2 send; do
	grep -q "return status 0" "$dir/$f.out" || fail "$f did not complete"
done
echo "PASS: both receivers got every datagram of the group"
