#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# netns.sh PAIR_SH MLX4EMU_RUN "EMU OPTIONS" PROGRAM [ARGS...]
# Two hosts: makes two network namespaces joined by a veth pair of its
# own (10.77.0.1/24 and 10.77.0.2/24, torn down at exit), runs the server
# in one and the client in the other, each adapter bound to its
# namespace's address (--addr; LIDs 1 and 2 are then the low 16 bits).
# Skipped (exit 77) where namespaces cannot be made.
set -u
pair="$1"; shift
tag="m4w$$"
ns1="${tag}a"; ns2="${tag}b"
cleanup() {
	ip netns del "$ns1" 2>/dev/null
	ip netns del "$ns2" 2>/dev/null
}
trap cleanup EXIT
if ! command -v ip >/dev/null 2>&1 || ! ip netns add "$ns1" 2>/dev/null; then
	echo "SKIP: cannot create network namespaces here (needs iproute2 and CAP_SYS_ADMIN)"
	exit 77
fi
if ! ip netns add "$ns2" ||
   ! ip link add "${tag}x" type veth peer name "${tag}y" 2>/dev/null ||
   ! ip link set "${tag}x" netns "$ns1" || ! ip link set "${tag}y" netns "$ns2"; then
	echo "SKIP: cannot create a veth pair between namespaces here"
	exit 77
fi
ip -n "$ns1" addr add 10.77.0.1/24 dev "${tag}x"
ip -n "$ns2" addr add 10.77.0.2/24 dev "${tag}y"
for n in "$ns1" "$ns2"; do
	ip -n "$n" link set lo up
done
ip -n "$ns1" link set "${tag}x" up
ip -n "$ns2" link set "${tag}y" up

run="$1"; opts="$2"; shift 2
PAIR_SERVER_WRAP="ip netns exec $ns1" PAIR_CLIENT_WRAP="ip netns exec $ns2" \
PAIR_SERVER_OPTS="--addr=10.77.0.1" PAIR_CLIENT_OPTS="--addr=10.77.0.2" \
PAIR_HOST=10.77.0.1 "$pair" "$run" "$opts" "$@"
