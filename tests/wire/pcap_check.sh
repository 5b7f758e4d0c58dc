#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pcap_check.sh MLX4EMU_RUN PAIR_SH "EMU OPTIONS" PROGRAM [ARGS...]
# Runs a server/client pair with both sides capturing (--pcap) and
# dissects the captures with tshark: at least one frame each, every frame
# RoCEv2 (IPv4/UDP 4791/InfiniBand), no malformed packet, no expert
# message of severity error.
set -u
run="$1"; pair="$2"; opts="$3"; shift 3
if ! command -v tshark >/dev/null 2>&1; then
	echo "tshark not installed: skipped"; exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pcap.XXXXXX")
trap 'rm -rf "$dir"' EXIT
PAIR_SERVER_OPTS="--pcap=$dir/server.pcap" PAIR_CLIENT_OPTS="--pcap=$dir/client.pcap" \
	"$pair" "$run" "$opts" "$@" || exit 1
fail=0
for f in "$dir/server.pcap" "$dir/client.pcap"; do
	all=$(tshark -r "$f" -d udp.port==4791,infiniband 2>/dev/null | wc -l)
	ib=$(tshark -r "$f" -d udp.port==4791,infiniband -Y "udp.dstport == 4791 && infiniband.bth" 2>/dev/null | wc -l)
	bad=$(tshark -r "$f" -d udp.port==4791,infiniband -Y "_ws.malformed || _ws.expert.severity == error" 2>/dev/null | wc -l)
	echo "$f: $all frames, $ib RoCEv2, $bad malformed or with errors"
	if [ "$all" -eq 0 ] || [ "$ib" -ne "$all" ] || [ "$bad" -ne 0 ]; then
		tshark -r "$f" -d udp.port==4791,infiniband -V 2>/dev/null | head -80
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "pcap: all frames dissect as RoCEv2"
exit "$fail"
