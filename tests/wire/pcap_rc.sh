#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# pcap_rc.sh PAIR_SH MLX4EMU_RUN "EMU OPTIONS" RC_PAIR [ARGS...]
# Runs rc_pair -m ops as a server/client pair (timeout 16 and retry_cnt
# 7: 2.1 s without progress before RETRY_EXC_ERR, so that a loaded host
# does not end the exchange early), both sides capturing
# (--pcap), and has pcap_rc.py dissect both captures with tshark and
# compare every RC header field and ICRC with what the client posted.
set -u
pair="$1"; run="$2"; opts="$3"; shift 3
for tool in tshark python3; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "SKIP: $tool not installed (scripts/install-deps)"; exit 77
	fi
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/pcap_rc.XXXXXX")
trap 'rm -rf "$dir"' EXIT
PAIR_SERVER_OPTS="--pcap=$dir/server.pcap" PAIR_CLIENT_OPTS="--pcap=$dir/client.pcap" \
	"$pair" "$run" "$opts" "$@" -m ops -T 16 -R 7 >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
[ $rc -eq 0 ] || { echo "FAIL: the pair failed"; exit 1; }
awk 'index($0, "--- ") == 1 { on = index($0, "--- client") == 1; next } on' "$dir/out" \
	>"$dir/client.out"
python3 "$(dirname "$0")/pcap_rc.py" "$dir/client.pcap" "$dir/server.pcap" "$dir/client.out"
