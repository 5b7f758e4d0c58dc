#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# credits_stall.sh MLX4EMU_RUN UD_COUNT CASE
# A UD receiver whose process stops (SIGSTOP) while a sender in another
# process streams N datagrams of 1 KiB to it (ud_count), then goes on
# (SIGCONT); emu/README.md, "Datagram credits".  Both adapters run with
# --debug, so that each prints its port's line at exit.
#   brief  stopped 0.2 s, below the 500 ms head-of-queue lifetime: the
#          sender waits for credits; all N are sent and all N arrive,
#          none lost anywhere.
#   long   stopped 1.5 s: the sender takes the peer as draining nothing
#          and discards what it would send meanwhile, counted lost on
#          send; the rest arrive, every datagram counted on one side.
# Either way the sender ends in time and the counts add up: sent + lost
# on send = N at the sender, received = sent at the receiver.
set -u
run="$1"; prog="$2"; case="$3"
n=100000
dir=$(mktemp -d "${TMPDIR:-/tmp}/credits_stall.XXXXXX")
server=""
trap 'kill -CONT $server 2>/dev/null; kill $server 2>/dev/null; rm -rf "$dir"' EXIT

fail() { echo "FAIL: $case: $*"; exit 1; }

case "$case" in
brief) stop=0.2 ;;
long) stop=1.5 ;;
*) fail "unknown case" ;;
esac

port=$(python3 "$(dirname "$0")/free_tcp_port.py") || fail "no free TCP port"
net="127.$((30 + $$ % 200)).$((1 + $$ / 200 % 250))"
"$run" --debug --addr="$net.1" "$prog" -p "$port" -r 512 -s 1024 -n "$n" \
	>"$dir/server" 2>&1 &
server=$!
i=0
until ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do
	i=$((i + 1))
	[ "$i" -lt 200 ] || fail "the server did not listen"
	sleep 0.05
done
# (stdbuf: the client says at once that it has its peer)
timeout 60 "$run" --debug --addr="$net.2" -- stdbuf -oL "$prog" -p "$port" -s 1024 -n "$n" 127.0.0.1 \
	>"$dir/client" 2>&1 &
client=$!
# stop the receiver once the stream flows: the client has its peer's
# address (the exchange is over) and sends
i=0
until grep -q "remote address" "$dir/client" 2>/dev/null; do
	i=$((i + 1))
	[ "$i" -lt 600 ] || fail "the client never reached its peer"
	sleep 0.05
done
sleep 0.1
kill -STOP "$server"
sleep "$stop"
kill -CONT "$server"
wait "$client"; crc=$?
wait "$server"; src=$?
server=""
grep -E 'RoCEv2 over|^ud_count' "$dir/client" "$dir/server"
[ "$crc" -eq 0 ] || fail "the sender exited $crc"
[ "$src" -eq 0 ] || fail "the receiver exited $src"

# packets sent, received, lost on send, from a port's line
figures() {
	sed -n 's/.*wire: \([0-9]*\) packets sent, \([0-9]*\) received; lost: \([0-9]*\) on send, \([0-9]*\) receive.*/\1 \2 \3 \4/p' "$1"
}
set -- $(figures "$dir/client"); sent=${1:-x}; lost=${3:-x}
set -- $(figures "$dir/server"); received=${2:-x}; overflow=${4:-x}
echo "sender: $sent sent, $lost lost on send; receiver: $received received, $overflow dropped by its buffer"
[ "$sent" != x ] && [ "$received" != x ] || fail "a port line is missing"
[ $((sent + lost)) -eq "$n" ] || fail "the sender accounts for $((sent + lost)) of $n"
[ "$received" -eq "$sent" ] && [ "$overflow" -eq 0 ] ||
	fail "$sent sent, $received received, $overflow dropped by the receiver's buffer"
case "$case" in
brief) [ "$lost" -eq 0 ] || fail "$lost discarded although the receiver was stopped only ${stop} s" ;;
long) [ "$lost" -gt 0 ] || fail "nothing discarded while the receiver was stopped ${stop} s" ;;
esac
echo "PASS: $case"
