#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Identity of the software adapter: every value derived from the address
# the port claims (emu/wire/identity.h), and an address held by one
# process is refused to the next.  Usage: identity.sh MLX4EMU_RUN
#
# The addresses are this run's own: 127.A.H.L outside the automatic
# 127.0.0.0/16, picked from the pid, and the next pick when another
# process (another build's run of this test) holds one of them; every
# value expected is derived here from the address picked.
set -u
run="$1"
fail=0
check() {	# check WHAT PATTERN TEXT
	if ! printf '%s\n' "$3" | grep -q -- "$2"; then
		echo "FAIL: $1: no '$2' in:"; printf '%s\n' "$3"; fail=1
	fi
}
busy() {	# busy TEXT: a bind of the run was refused (the address is taken)
	printf '%s\n' "$1" | grep -q "cannot bind a UDP socket to .*Address already in use"
}

# pick TRY: a, h, l of 127.a.h.l, l + 1 and l + 2 (a in [1, 254], h.l an
# InfiniBand unicast LID, l + 2 in the same /24)
pick() {
	seed=$(($$ + $1 * 7919))
	a=$((1 + seed % 254))
	h=$((seed / 254 % 0xbf))
	l=$((1 + 4 * (seed / (254 * 0xbf) % 63)))
}
PICKS=20

# Port 1 (InfiniBand) at 127.a.h.l: LID h.l, GUIDs 0002:c90K:7fAA:HHLL;
# port 2 (Ethernet) at 127.a.h.(l+1): MAC 02:c9:7f:AA:HH:LL' whose EUI-64
# is 00c9:7fff:feAA:HHLL', and the IPv4-mapped RoCE v2 GID.
try=0
while :; do
	pick $try
	ib="127.$a.$h.$l" eth="127.$a.$h.$((l + 1))"
	out=$("$run" --ports=2 --link-layer=ib,eth --addr="$ib,$eth" ibv_devinfo -v 2>&1)
	busy "$out" || break
	try=$((try + 1))
	[ $try -lt $PICKS ] || { echo "FAIL: $PICKS picks of addresses all taken"; exit 1; }
done
aa=$(printf %02x "$a") hh=$(printf %02x "$h")
check "node GUID" "node_guid:[[:space:]]*0002:c900:7f$aa:$hh$(printf %02x "$l")" "$out"
check "system image GUID" "sys_image_guid:[[:space:]]*0002:c903:7f$aa:$hh$(printf %02x "$l")" "$out"
check "IB LID" "port_lid:[[:space:]]*$((h * 256 + l))$" "$out"
check "IB GID" "GID\[  0\]:[[:space:]]*fe80:0000:0000:0000:0002:c901:7f$aa:$hh$(printf %02x "$l")$" "$out"
check "RoCE v1 GID" "GID\[  0\]:[[:space:]]*fe80:0000:0000:0000:00c9:7fff:fe$aa:$hh$(printf %02x $((l + 1))), RoCE v1" "$out"
check "RoCE v2 GID" "GID\[  1\]:[[:space:]]*::ffff:$eth, RoCE v2" "$out"

# an InfiniBand port's LID is the low 16 bits: they must be a unicast LID
# (refused before any bind)
out=$("$run" --addr=127.0.192.1 ibv_devinfo 2>&1)
check "multicast LID refused" "must be in \[1, 0xbfff\]" "$out"

# an address held by a live adapter is not taken twice: the holder's
# constructor has claimed 127.a.h.(l+2) once it runs the command (or said
# that it could not, then the next pick)
dir=$(mktemp -d "${TMPDIR:-/tmp}/identity.XXXXXX")
while :; do
	held="127.$a.$h.$((l + 2))"
	# (sleep without the adapter: it would claim the same address)
	"$run" --addr="$held" sh -c ": > '$dir/ready'; LD_PRELOAD= sleep 10" 2>"$dir/holder" &
	holder=$!
	tries=0
	while [ ! -e "$dir/ready" ] && [ $tries -lt 200 ]; do
		sleep 0.1; tries=$((tries + 1))
	done
	busy "$(cat "$dir/holder")" || break
	kill "$holder" 2>/dev/null
	wait "$holder"
	rm -f "$dir/ready"
	try=$((try + 1))
	[ $try -lt $PICKS ] || { echo "FAIL: $PICKS picks of addresses all taken"; rm -rf "$dir"; exit 1; }
	pick $try
done
if [ -e "$dir/ready" ]; then
	out=$("$run" --addr="$held" ibv_devinfo 2>&1)
	check "held address refused" "cannot bind a UDP socket to $held:4791: Address already in use" "$out"
else
	echo "FAIL: the holder of $held did not start"; fail=1
fi
kill "$holder" 2>/dev/null
wait
rm -rf "$dir"
# without --addr: a free 127.0.H.L
out=$("$run" ibv_devinfo -v 2>&1)
check "automatic address" "node_guid:[[:space:]]*0002:c900:7f00:" "$out"
[ "$fail" = 0 ] && echo "identity: all checks passed"
exit "$fail"
