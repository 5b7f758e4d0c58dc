#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# wire-perf.sh [-b BUILD_DIR] [-s "SIZES"] [-n WRITES] [-l ROUND_TRIPS]
#
# The software ConnectX-3 between two processes (RoCEv2 over loopback
# UDP) side by side with its in-process path, in one run, per message
# size (default 64 B to 64 KiB):
#   write MB/s   examples/rdma_write_bw, RDMA WRITEs (batch 16, a completion
#                every 16), both QPs in one process, then writer and target
#                in two processes; perftest ib_write_bw between two processes
#   RTT usec     examples/rc_pingpong, SEND/RECV ping-pong, median round
#                trip in one process and in two; perftest ib_write_lat and
#                ib_send_lat between two processes (t_typical: median one
#                way, as perftest reports latency)
# MB = 10^6 bytes for the examples; perftest's "MB/sec" is 2^20 bytes per
# second, converted here to 10^6.  Every figure is a single run on
# whatever the machine is doing: print the load with it.
set -u
build=build/release
sizes="64 256 1024 4096 16384 65536"
writes=20000
rtts=2000
while getopts b:s:n:l: o; do
	case "$o" in
	b) build="$OPTARG" ;;
	s) sizes="$OPTARG" ;;
	n) writes="$OPTARG" ;;
	l) rtts="$OPTARG" ;;
	*) echo "usage: $0 [-b BUILD_DIR] [-s \"SIZES\"] [-n WRITES] [-l ROUND_TRIPS]" >&2; exit 2 ;;
	esac
done
run="$build/emu/mlx4emu-run"
ex="$build/examples"
for f in "$run" "$ex/rdma_write_bw" "$ex/rc_pingpong"; do
	[ -x "$f" ] || { echo "$0: $f not built" >&2; exit 2; }
done
command -v ib_write_bw >/dev/null 2>&1 || { echo "$0: perftest not installed" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/wire-perf.XXXXXX")
trap 'rm -rf "$dir"' EXIT
port=$((30000 + $$ % 20000))

# pair OUT_PREFIX PROGRAM ARGS...: server and client, outputs in files
pair() {
	out="$1"; shift
	port=$((port + 1))
	timeout -k 5 300 "$run" --doorbell=poll -- "$@" -p "$port" >"$out.server" 2>&1 &
	spid=$!
	tries=0
	while ! ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && [ $tries -lt 200 ]; do
		sleep 0.05; tries=$((tries + 1))
	done
	timeout -k 5 300 "$run" --doorbell=poll -- "$@" -p "$port" 127.0.0.1 >"$out.client" 2>&1
	wait "$spid"
}

# figures of the examples and of perftest
mbps() { awk '/direct .*writes\/s/ { for (i = 1; i < NF; i++) if ($(i + 1) == "MB/s") print $i }' "$1"; }
p50() { awk '/round trip:/ { for (i = 1; i < NF; i++) if ($i == "p50") print $(i + 1) }' "$1"; }
perf_bw() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 { printf "%.1f\n", $4 * 1048576 / 1e6 }' "$1"; }
perf_lat() { awk '$1 ~ /^[0-9]+$/ && NF >= 5 { print $5 }' "$1"; }
or_dash() { [ -n "$1" ] && echo "$1" || echo "-"; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%8s | %12s %12s %12s | %10s %10s %12s %12s\n" "bytes" "1-proc MB/s" "2-proc MB/s" \
	"ib_write_bw" "1-proc RTT" "2-proc RTT" "ib_write_lat" "ib_send_lat"
for s in $sizes; do
	n=$writes
	[ "$s" -ge 16384 ] && n=$((writes / 4))
	bwargs="-s $s -n $n -b 16 --signal-every 16"
	"$run" --doorbell=poll -- "$ex/rdma_write_bw" $bwargs >"$dir/bw1" 2>&1
	pair "$dir/bw2" "$ex/rdma_write_bw" $bwargs
	pair "$dir/pbw" ib_write_bw -s "$s" -n "$n" -F
	"$run" --doorbell=poll -- "$ex/rc_pingpong" -s "$s" -n "$rtts" >"$dir/rtt1" 2>&1
	pair "$dir/rtt2" "$ex/rc_pingpong" -s "$s" -n "$rtts"
	pair "$dir/pwl" ib_write_lat -s "$s" -n "$rtts" -F
	pair "$dir/psl" ib_send_lat -s "$s" -n "$rtts" -F
	printf "%8s | %12s %12s %12s | %10s %10s %12s %12s\n" "$s" \
		"$(or_dash "$(mbps "$dir/bw1")")" "$(or_dash "$(mbps "$dir/bw2.client")")" \
		"$(or_dash "$(perf_bw "$dir/pbw.client")")" \
		"$(or_dash "$(p50 "$dir/rtt1")")" "$(or_dash "$(p50 "$dir/rtt2.client")")" \
		"$(or_dash "$(perf_lat "$dir/pwl.client")")" "$(or_dash "$(perf_lat "$dir/psl.client")")"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
