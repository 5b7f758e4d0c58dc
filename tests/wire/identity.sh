#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Identity of the software adapter: every value derived from the address
# the port claims (emu/wire/identity.h), and an address held by one
# process is refused to the next.  Usage: identity.sh MLX4EMU_RUN
set -u
run="$1"
fail=0
check() {	# check WHAT PATTERN TEXT
	if ! printf '%s\n' "$3" | grep -q -- "$2"; then
		echo "FAIL: $1: no '$2' in:"; printf '%s\n' "$3"; fail=1
	fi
}

# 127.0.5.6 by hand: LID 0x0506 = 1286, GUIDs 0002:c90K:7f00:0506,
# port 2 (Ethernet, 127.0.5.7): MAC 02:c9:7f:00:05:07 whose EUI-64 is
# 00c9:7fff:fe00:0507, and the IPv4-mapped RoCE v2 GID.
out=$("$run" --ports=2 --link-layer=ib,eth --addr=127.0.5.6,127.0.5.7 ibv_devinfo -v 2>&1)
check "node GUID" "node_guid:[[:space:]]*0002:c900:7f00:0506" "$out"
check "system image GUID" "sys_image_guid:[[:space:]]*0002:c903:7f00:0506" "$out"
check "IB LID" "port_lid:[[:space:]]*1286$" "$out"
check "IB GID" "GID\[  0\]:[[:space:]]*fe80:0000:0000:0000:0002:c901:7f00:0506$" "$out"
check "RoCE v1 GID" "GID\[  0\]:[[:space:]]*fe80:0000:0000:0000:00c9:7fff:fe00:0507, RoCE v1" "$out"
check "RoCE v2 GID" "GID\[  1\]:[[:space:]]*::ffff:127.0.5.7, RoCE v2" "$out"

# an InfiniBand port's LID is the low 16 bits: they must be a unicast LID
out=$("$run" --addr=127.0.192.1 ibv_devinfo 2>&1)
check "multicast LID refused" "must be in \[1, 0xbfff\]" "$out"

# an address held by a live adapter is not taken twice
ready=$(mktemp -u "${TMPDIR:-/tmp}/identity.XXXXXX")
# sh's constructor has claimed the address once it runs the command
"$run" --addr=127.0.5.8 sh -c ": > '$ready'; sleep 10" 2>/dev/null &
holder=$!
tries=0
while [ ! -e "$ready" ] && [ $tries -lt 200 ]; do
	sleep 0.1; tries=$((tries + 1))
done
rm -f "$ready"
out=$("$run" --addr=127.0.5.8 ibv_devinfo 2>&1)
check "held address refused" "cannot bind a UDP socket to 127.0.5.8:4791: Address already in use" "$out"
kill "$holder" 2>/dev/null
wait
# without --addr: a free 127.0.H.L
out=$("$run" ibv_devinfo -v 2>&1)
check "automatic address" "node_guid:[[:space:]]*0002:c900:7f00:" "$out"
[ "$fail" = 0 ] && echo "identity: all checks passed"
exit "$fail"
