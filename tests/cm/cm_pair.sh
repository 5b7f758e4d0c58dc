#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# cm_pair.sh MLX4EMU_RUN "EMU OPTIONS" SERVER [ARGS...] -- CLIENT [ARGS...]
# A librdmacm program as server and client in two processes, each its own
# software adapter, connecting through /dev/infiniband/rdma_cm.  In the
# arguments @S@ is the server's address, @P@ a port: the server's adapter
# has address 127.B.C.1 and the client's 127.B.C.2 (B and C drawn at
# random, so that tests in parallel never meet; both in one /16, as two
# InfiniBand ports of one subnet are).  Both must exit 0 within
# CM_PAIR_TIMEOUT seconds (default 60).  The client starts once the
# server's adapter is up (its RoCEv2 socket bound); the server has no TCP
# socket to wait for, so a client that the server's CM rejected because
# the program was not listening yet (CM_PAIR_REFUSED, a regular
# expression on its output) is started again, at most 100 times, 0.1 s
# apart.  A program that makes a second connection once the first is up
# (perftest -R: its data QPs after the exchange of its parameters) can be
# refused on that second one too, when its server has not listened for it
# yet; restarting the client then would meet a server in the middle of the
# old client's exchange, so such a refusal (CM_PAIR_MIDWAY, a regular
# expression on the client's output) stops the server and runs the whole
# pair again, server first, at most CM_PAIR_PAIR_TRIES times in all
# (default 5); the log names each such restart.
# CM_PAIR_CHECK, when
# set, is a regular expression each side's output must match,
# CM_PAIR_CLIENT_CHECK one the client's must; CM_PAIR_SERVER_OPTS and
# CM_PAIR_CLIENT_OPTS add launcher options to one side.  rping's exit 255
# from its teardown race (below) counts as its exit 0.
set -u
run="$1"; opts="$2"; shift 2
timeout_s="${CM_PAIR_TIMEOUT:-60}"
refused="${CM_PAIR_REFUSED:-REJECTED[,;] error:? 8|Connection refused|CM event bl blka 8|UNREACHABLE[,;] error:? 1}"
dir=$(mktemp -d "${TMPDIR:-/tmp}/cm_pair.XXXXXX")
trap 'kill $server 2>/dev/null; rm -rf "$dir"' EXIT

rand() { od -An -N2 -tu2 /dev/urandom | tr -d ' '; }
while :; do
	net="127.$((20 + $(rand) % 200)).$((1 + $(rand) % 190))"
	ss -Hlun "( src $net.1 or src $net.2 )" 2>/dev/null | grep -q . || break
done
port=$((20000 + $(rand) % 40000))
server_cmd=""; client_cmd=""; side=server
for a in "$@"; do
	if [ "$a" = "--" ] && [ $side = server ]; then side=client; continue; fi
	a=$(printf '%s' "$a" | sed "s/@S@/$net.1/g; s/@P@/$port/g")
	if [ $side = server ]; then server_cmd="$server_cmd '$a'"; else client_cmd="$client_cmd '$a'"; fi
done

# One run of the pair: the server, then the client, started again while
# the server's CM refuses it for not listening yet.  Sets src, crc, tries
# and midway.
run_pair() {
	# (exec: $! is then timeout itself, not a shell around it, so that a
	# kill of $server reaches the program and `wait` outlasts it)
	# shellcheck disable=SC2086
	eval exec timeout -k 5 "$timeout_s" "$run" $opts ${CM_PAIR_SERVER_OPTS:-} --addr="$net.1" -- \
		"$server_cmd" >"$dir/server.out" 2>&1 &
	server=$!
	# the client resolves the server's address only once its adapter holds
	# it (else ADDR_ERROR): at most 30 s
	i=0
	while [ $i -lt 300 ] && ! ss -Hlun "src $net.1:4791" 2>/dev/null | grep -q .; do
		kill -0 $server 2>/dev/null || break
		i=$((i + 1)); sleep 0.1
	done
	# and gives the program a second to listen
	sleep 1
	tries=0
	while :; do
		# shellcheck disable=SC2086
		eval timeout -k 5 "$timeout_s" "$run" $opts ${CM_PAIR_CLIENT_OPTS:-} --addr="$net.2" -- \
			"$client_cmd" >"$dir/client.out" 2>&1
		crc=$?
		[ $crc -ne 0 ] && grep -Eq "$refused" "$dir/client.out" && kill -0 $server 2>/dev/null &&
			[ $tries -lt 100 ] || break
		tries=$((tries + 1))
		sleep 0.1
	done
	midway=""
	if [ -n "${CM_PAIR_MIDWAY:-}" ] && grep -Eq "$CM_PAIR_MIDWAY" "$dir/client.out"; then
		midway=1
		kill $server 2>/dev/null
	fi
	wait $server
	src=$?
}

pair_tries=${CM_PAIR_PAIR_TRIES:-5}
pair_run=1
while :; do
	run_pair
	[ -n "$midway" ] && [ $pair_run -lt "$pair_tries" ] || break
	echo "--- run $pair_run: the client's second connection was refused (its server not" \
		"listening for it yet); server stopped, the pair started again"
	sed 's/^/    client: /' "$dir/client.out"
	# the stopped server's program may outlive its launcher a moment: its
	# adapter's address must be free before the next server takes it
	i=0
	while [ $i -lt 100 ] && ss -Hlun "src $net.1:4791" 2>/dev/null | grep -q .; do
		i=$((i + 1)); sleep 0.1
	done
	[ $i -lt 100 ] || ss -Hlunp "src $net.1:4791"
	pair_run=$((pair_run + 1))
done
echo "--- server (exit $src):"; cat "$dir/server.out"
echo "--- client (exit $crc, after $tries refused tries):"; cat "$dir/client.out"
if [ -n "$midway" ]; then
	echo "FAIL: the client's second connection was refused (its server not listening for it yet), in each of $pair_run runs"
	exit 1
fi
# rping (rdma-core 44 rping.c) never stops its CM thread: main destroys
# the event channel once its pings are done, and a thread not back in
# rdma_get_cm_event by then gets EBADF and exits 255, on a ConnectX-3 as
# here.  That exit, with that line, is rping's teardown; the checks
# below still judge the run.
teardown_race() {
	case "$2" in " 'rping' "*) ;; *) return 1 ;; esac
	[ "$1" -eq 255 ] && grep -qx "rdma_get_cm_event: Bad file descriptor" "$dir/$3.out" &&
		echo "--- the $3's exit 255 is rping's teardown race (EBADF in its CM thread)"
}
teardown_race "$src" "$server_cmd" server && src=0
teardown_race "$crc" "$client_cmd" client && crc=0
if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ]; then
	echo "FAIL: server exit $src, client exit $crc"
	exit 1
fi
if [ -n "${CM_PAIR_CHECK:-}" ]; then
	for s in server client; do
		if ! grep -Eq "$CM_PAIR_CHECK" "$dir/$s.out"; then
			echo "FAIL: the $s's output does not match '$CM_PAIR_CHECK'"
			exit 1
		fi
	done
fi
if [ -n "${CM_PAIR_CLIENT_CHECK:-}" ] && ! grep -Eq "$CM_PAIR_CLIENT_CHECK" "$dir/client.out"; then
	echo "FAIL: the client's output does not match '$CM_PAIR_CLIENT_CHECK'"
	exit 1
fi
echo "PASS: both sides exit 0"
