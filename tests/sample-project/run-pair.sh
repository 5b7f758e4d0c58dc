#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run-pair.sh SERVER CLIENT [mlx4emu-run options...] [-- client options...]
# Runs SERVER and CLIENT, each under mlx4emu-run (MLX4EMU_RUN, or the one
# on PATH) with the same options, so each is its own adapter. The client
# runs the options after "--" (default: -n 500 -s 2048). The server
# listens on a port the kernel picks and writes it to a file the client
# reads: parallel runs never meet. Exit 0 only when both exited 0.
set -u
server=$1 client=$2
shift 2
run=${MLX4EMU_RUN:-mlx4emu-run}
launcher_options=
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	launcher_options="$launcher_options $1"
	shift
done
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- -n 500 -s 2048
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# shellcheck disable=SC2086 # one launcher option a word
"$run" $launcher_options -- "$server" --port-file "$dir/port" &
server_pid=$!
# shellcheck disable=SC2086
"$run" $launcher_options -- "$client" --port-file "$dir/port" --counters "$@" 127.0.0.1
client_status=$?
if [ "$client_status" -ne 0 ]; then
	# a client that failed may leave the server waiting for it (60 s)
	kill "$server_pid" 2>/dev/null
fi
wait "$server_pid"
server_status=$?
echo "run-pair: server exit $server_status, client exit $client_status"
[ "$server_status" -eq 0 ] && [ "$client_status" -eq 0 ]
