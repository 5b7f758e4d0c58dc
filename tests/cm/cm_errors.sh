#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# cm_errors.sh MLX4EMU_RUN
# What a librdmacm program sees when the connection cannot be made, with
# stock rping as on hardware:
#  - a port nobody listens on, at an adapter that is there: the REQ gets a
#    REJ (reason 8, invalid service ID): "RDMA_CM_EVENT_REJECTED, error 8",
#    exit non-zero, at once;
#  - an address no adapter owns: "RDMA_CM_EVENT_ADDR_ERROR, error -113";
#  - binding an address the adapter does not own: EADDRNOTAVAIL;
#  - the server killed (SIGKILL) while the client pings: the client gets
#    DISCONNECTED (its CM finds the peer adapter gone, as the peer's kernel
#    would have sent a DREQ) or an error completion, and ends by itself,
#    well before the time limit.
set -u
run="$1"
dir=$(mktemp -d "${TMPDIR:-/tmp}/cm_errors.XXXXXX")
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT
server=
rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
net="127.$((20 + $(rand) % 200)).$((1 + $(rand) % 190))"
port=$((20000 + $(rand) % 40000))
fail() { echo "FAIL: $*"; exit 1; }
now_ms() { date +%s%3N; }

# waits (at most 20 s) until the adapter at $1 holds its RoCEv2 port
adapter_up() {
	i=0
	while [ $i -lt 200 ]; do
		ss -Hlun "src $1:4791" 2>/dev/null | grep -q . && return 0
		i=$((i + 1)); sleep 0.1
	done
	return 1
}

timeout -k 5 60 "$run" --addr="$net.1" -- rping -s -a "$net.1" -p "$port" -C 1 \
	>"$dir/server.out" 2>&1 &
server=$!
adapter_up "$net.1" || fail "the server's adapter did not come up"

t0=$(now_ms)
timeout -k 5 30 "$run" --addr="$net.2" -- rping -c -a "$net.1" -p $((port + 1)) -C 1 \
	>"$dir/refused.out" 2>&1
rc=$?; t1=$(now_ms)
cat "$dir/refused.out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "refused client exit $rc"
grep -q "RDMA_CM_EVENT_REJECTED, error 8" "$dir/refused.out" || fail "no REJ (reason 8)"
echo "refused: exit $rc after $((t1 - t0)) ms"
[ $((t1 - t0)) -lt 10000 ] || fail "the REJ took $((t1 - t0)) ms"

timeout -k 5 30 "$run" --addr="$net.2" -- rping -c -a "$net.9" -p "$port" -C 1 \
	>"$dir/noaddr.out" 2>&1
rc=$?
cat "$dir/noaddr.out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "client to an address nobody owns: exit $rc"
grep -q "RDMA_CM_EVENT_ADDR_ERROR, error -113" "$dir/noaddr.out" || fail "no ADDR_ERROR"

timeout -k 5 30 "$run" --addr="$net.2" -- rping -s -a "$net.9" -p "$port" -C 1 \
	>"$dir/bind.out" 2>&1
rc=$?
cat "$dir/bind.out"
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "bind to an address not owned: exit $rc"
grep -q "rdma_bind_addr: Cannot assign requested address" "$dir/bind.out" ||
	fail "bind did not fail with EADDRNOTAVAIL"

# the first server still waits for its client: this one takes it
timeout -k 5 30 "$run" --addr="$net.2" -- rping -c -a "$net.1" -p "$port" -C 1 -V \
	>"$dir/one.out" 2>&1 || fail "the client of the first server failed"
wait $server || fail "the first server failed"

# killed server: unlimited pings (-C 0) until it is gone
timeout -k 5 60 "$run" --addr="$net.1" -- rping -s -a "$net.1" -p "$port" -C 0 \
	>"$dir/server2.out" 2>&1 &
server=$!
adapter_up "$net.1" || fail "the second server's adapter did not come up"
sleep 0.5
: >"$dir/victim.out"
timeout -k 5 60 "$run" --addr="$net.2" -- rping -c -a "$net.1" -p "$port" -C 0 -v \
	>"$dir/victim.out" 2>&1 &
client=$!
i=0
while [ $i -lt 200 ] && ! grep -q "rdma-ping-20:" "$dir/victim.out"; do
	i=$((i + 1)); sleep 0.1
done
grep -q "rdma-ping-20:" "$dir/victim.out" || fail "the pings did not start"
kill -9 "$(pgrep -P $server | head -1)" 2>/dev/null
t0=$(now_ms)
wait $client
rc=$?; t1=$(now_ms)
tail -3 "$dir/victim.out"
# rping's exit status then depends on where its loop was; that it ended
# by itself, and why, is what counts
[ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "client of a killed server: exit $rc (time limit)"
grep -Eq "client DISCONNECT EVENT|completion failed" "$dir/victim.out" ||
	fail "the client of a killed server saw neither DISCONNECTED nor an error completion"
echo "killed server: the client exits $rc after $((t1 - t0)) ms"
echo "PASS: REJ, ADDR_ERROR, EADDRNOTAVAIL and a peer gone as on hardware"
