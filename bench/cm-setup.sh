#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# cm-setup.sh [-b BUILD_DIR] [-n CONNECTIONS]
#
# Connection set-up between two processes through the connection manager
# (rdma_connect to ESTABLISHED: ADDR and ROUTE resolution, REQ, REP,
# librdmacm's QP moves to RTR and RTS, RTU), beside a TCP connect with a
# 64-byte exchange each way, what programs that bring their own TCP
# exchange (perftest without -R, ibv_*_pingpong) pay instead, on an
# InfiniBand and an Ethernet port: tests/cm/cm_loop (default 1000
# connections, each carrying one checked SEND each way and torn down
# before the next).  The load average is printed before and after: every
# figure is one run on whatever the machine is doing.
set -u
build=build/release
count=1000
while getopts b:n: o; do
	case $o in
	b) build=$OPTARG ;;
	n) count=$OPTARG ;;
	*) exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")/.." && pwd)
loop="$build/tests/cm/cm_loop"
[ -x "$loop" ] || { echo "no $loop: cmake --build $build --target cm_loop" >&2; exit 1; }
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ll in ib eth; do
	echo "--- $ll port"
	CM_PAIR_TIMEOUT=600 "$here/tests/cm/cm_pair.sh" "$build/emu/mlx4emu-run" "--link-layer=$ll" \
		"$loop" -s @S@ -p @P@ -n "$count" -- "$loop" -c @S@ -p @P@ -n "$count" |
		grep -E '^\|'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
