#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# wire-perf.sh [-b BUILD_DIR] [-s "SIZES"] [-n MESSAGES] [-l ROUND_TRIPS]
#
# The software ConnectX-3 between two processes (RoCEv2 over loopback
# UDP) side by side with its in-process path, in one run, per message
# size (default 64 B to 64 KiB), on an InfiniBand port (path MTU 2048):
#
# bandwidth, MB/s (10^6 bytes per second)
#   1-proc, 2-proc   examples/rdma_write_bw: RDMA WRITEs through mlx4dv.h,
#                    16 per doorbell, a completion every 16; writer and
#                    target QPs in one process, then in two
#   ratio            2-proc / 1-proc
#   ib_write_bw, ib_read_bw, ib_send_bw
#                    perftest between two processes (BW average; perftest's
#                    MB is 2^20 bytes, converted here)
# latency, usec
#   1-proc, 2-proc   examples/rc_pingpong: SEND/RECV round trip, median
#   ratio            2-proc / 1-proc
#   ib_write_lat, ib_send_lat
#                    perftest t_typical: the median of half round trips
#   ib_read_lat      perftest t_typical: one READ, a whole round trip
#
# Every figure is one run on whatever the machine is doing at the time:
# the load average is printed before and after.  A "-" is a run that
# failed (its output is kept in the directory printed at the end when
# any did).
set -u
build=build/release
sizes="64 256 1024 4096 16384 65536"
msgs=20000
rtts=2000
while getopts b:s:n:l: o; do
	case "$o" in
	b) build="$OPTARG" ;;
	s) sizes="$OPTARG" ;;
	n) msgs="$OPTARG" ;;
	l) rtts="$OPTARG" ;;
	*) echo "usage: $0 [-b BUILD_DIR] [-s \"SIZES\"] [-n MESSAGES] [-l ROUND_TRIPS]" >&2; exit 2 ;;
	esac
done
run="$build/emu/mlx4emu-run"
ex="$build/examples"
for f in "$run" "$ex/rdma_write_bw" "$ex/rc_pingpong"; do
	[ -x "$f" ] || { echo "$0: $f not built" >&2; exit 2; }
done
for p in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat; do
	command -v "$p" >/dev/null 2>&1 || { echo "$0: $p not installed (Debian perftest)" >&2; exit 2; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/wire-perf.XXXXXX")
port=$((30000 + $$ % 20000))

# a TCP port nobody listens on
free_port() {
	port=$((port + 1))
	while ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do
		port=$((port + 1))
	done
}

# pair OUT PROGRAM ARGS...: server and client (-p PORT; the client names
# 127.0.0.1), each its own adapter, outputs in OUT.server and OUT.client;
# every process is bounded (300 s) and waited for
pair() {
	out="$1"; shift
	free_port
	timeout -k 5 300 "$run" -- "$@" -p "$port" >"$out.server" 2>&1 &
	spid=$!
	tries=0
	while ! ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && [ $tries -lt 400 ]; do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.05; tries=$((tries + 1))
	done
	timeout -k 5 300 "$run" -- "$@" -p "$port" 127.0.0.1 >"$out.client" 2>&1
	wait "$spid"
}

# one process
solo() {
	out="$1"; shift
	timeout -k 5 300 "$run" -- "$@" >"$out" 2>&1
}

# figures of the examples and of perftest; "-" when absent
dash() { if [ -n "$1" ]; then echo "$1"; else : >"$dir/failed"; echo "-"; fi; }
ex_mbps() { awk '/direct .*writes\/s/ { for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print $i }' "$1"; }
ex_p50() { awk '/round trip:/ { for (i = 1; i < NF; i++) if ($i == "p50") { v = $(i + 1); sub(/us$/, "", v); print v } }' "$1"; }
pt_bw() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $2 ~ /^[0-9]+$/ { printf "%.1f\n", $4 * 1048576 / 1e6 }' "$1"; }
pt_lat() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 && $2 ~ /^[0-9]+$/ { print $5 }' "$1"; }
ratio() {
	case "$1$2" in *-*) echo "-"; return ;; esac
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f\n", a / b; else print "-" }'
}

echo "# wire-perf: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# bandwidth, MB/s (10^6 B/s)"
printf "%8s | %9s %9s %6s | %11s %11s %11s\n" bytes 1-proc 2-proc ratio \
	ib_write_bw ib_read_bw ib_send_bw
for s in $sizes; do
	n=$msgs
	[ "$s" -ge 16384 ] && n=$((msgs / 4))
	bw="-s $s -n $n -b 16 --signal-every 16"
	# shellcheck disable=SC2086
	solo "$dir/bw1.$s" "$ex/rdma_write_bw" $bw
	# shellcheck disable=SC2086
	pair "$dir/bw2.$s" "$ex/rdma_write_bw" $bw
	for p in write read send; do
		pair "$dir/$p.bw.$s" "ib_${p}_bw" -s "$s" -n "$n" -F
	done
	one=$(dash "$(ex_mbps "$dir/bw1.$s")")
	two=$(dash "$(ex_mbps "$dir/bw2.$s.client")")
	printf "%8s | %9s %9s %6s | %11s %11s %11s\n" "$s" "$one" "$two" "$(ratio "$two" "$one")" \
		"$(dash "$(pt_bw "$dir/write.bw.$s.client")")" \
		"$(dash "$(pt_bw "$dir/read.bw.$s.client")")" \
		"$(dash "$(pt_bw "$dir/send.bw.$s.client")")"
done
echo "# latency, usec (examples: round trip; ib_write_lat, ib_send_lat: half; ib_read_lat: one READ)"
printf "%8s | %9s %9s %6s | %12s %12s %12s\n" bytes 1-proc 2-proc ratio \
	ib_write_lat ib_send_lat ib_read_lat
for s in $sizes; do
	solo "$dir/rtt1.$s" "$ex/rc_pingpong" -s "$s" -n "$rtts"
	pair "$dir/rtt2.$s" "$ex/rc_pingpong" -s "$s" -n "$rtts"
	for p in write send read; do
		pair "$dir/$p.lat.$s" "ib_${p}_lat" -s "$s" -n "$rtts" -F
	done
	one=$(dash "$(ex_p50 "$dir/rtt1.$s")")
	two=$(dash "$(ex_p50 "$dir/rtt2.$s.client")")
	printf "%8s | %9s %9s %6s | %12s %12s %12s\n" "$s" "$one" "$two" "$(ratio "$two" "$one")" \
		"$(dash "$(pt_lat "$dir/write.lat.$s.client")")" \
		"$(dash "$(pt_lat "$dir/send.lat.$s.client")")" \
		"$(dash "$(pt_lat "$dir/read.lat.$s.client")")"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -e "$dir/failed" ]; then
	echo "# some runs failed: their output is in $dir"
else
	rm -rf "$dir"
fi
