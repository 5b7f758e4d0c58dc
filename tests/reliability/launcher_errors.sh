#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# test_launcher_errors: bad invocations of mlx4emu-run and bad device
# settings get the exit status and message docs/errors.md gives, and a
# badly configured device is absent rather than half there.
# Usage: launcher_errors.sh MLX4EMU_RUN
set -u
run=$1
fails=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# expect STATUS PATTERN -- COMMAND...: exit status and a line of stderr
expect() {
	want_status=$1
	pattern=$2
	shift 3
	"$@" >/dev/null 2>"$out"
	status=$?
	if [ "$status" -ne "$want_status" ] || ! grep -q -- "$pattern" "$out"; then
		echo "FAIL: $*: status $status (want $want_status), stderr:" >&2
		cat "$out" >&2
		fails=$((fails + 1))
	else
		echo "ok: $* -> $status, '$pattern'"
	fi
}

# no device at all: ibv_devices fails and lists nothing
expect_no_device() {
	"$@" >"$out.stdout" 2>"$out"
	if grep -q mlx4_0 "$out.stdout" || \
	   ! grep -q "bad configuration, device disabled" "$out"; then
		echo "FAIL: $*: device present or no message" >&2
		cat "$out" >&2
		fails=$((fails + 1))
	else
		echo "ok: $* -> no device"
	fi
	rm -f "$out.stdout"
}

expect 2 "mlx4emu-run: unknown option --bogus" -- "$run" --bogus -- true
expect 2 "^usage: mlx4emu-run" -- "$run"
expect 2 "^usage: mlx4emu-run" -- "$run" --cqe-size=64 --
# a bad setting is named both ways a user gives it: the option and the
# variable it sets
expect 1 "^mlx4emu: --cqe-size / MLX4EMU_CQE_SIZE: 48: must be 32 or 64$" -- \
	"$run" --cqe-size=48 -- ibv_devices
expect 1 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- "$run" --ports=3 -- ibv_devices
expect 1 "^mlx4emu: --fault-cqe / MLX4EMU_FAULT_CQE: 0: expected N\[:syndrome\]\[:id\] with N >= 1$" -- \
	"$run" --fault-cqe=0 -- ibv_devices
expect 1 "^mlx4emu: --fault-qp-err / MLX4EMU_FAULT_QP_ERR: -1: expected N\[:id\] with N >= 1$" -- \
	"$run" --fault-qp-err=-1 -- ibv_devices
expect 1 "^mlx4emu: --device-id / MLX4EMU_DEVICE_ID: 0x1234: must be 0x1003 or 0x1007$" -- \
	"$run" --device-id=0x1234 -- ibv_devices
expect 1 "^mlx4emu: --doorbell / MLX4EMU_DOORBELL: ring: expected trap or poll$" -- \
	"$run" --doorbell=ring -- ibv_devices
expect 1 "^mlx4emu: --link-layer / MLX4EMU_LINK_LAYER: bad value 'fddi'$" -- \
	"$run" --link-layer=ib,fddi -- ibv_devices
expect 1 "^mlx4emu: --wire-reorder / MLX4EMU_WIRE_REORDER: 5:0: expected PCT\[:USEC\] (PCT 0..100, USEC 1..10000000)$" -- \
	"$run" --wire-reorder=5:0 -- ibv_devices
# the variable set directly gets the same message
expect 1 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- \
	env MLX4EMU_PORTS=3 "$run" -- ibv_devices
# every --NAME=VALUE option without a bare --NAME form takes "--NAME VALUE"
for name in $(sed -n 's/^[[:space:]]*--\([a-z-]*\)=\*).*/\1/p' "$run"); do
	if grep -q -- "^[[:space:]]*--$name)" "$run"; then
		continue
	fi
	expect 2 "mlx4emu-run: --$name needs a value" -- "$run" "--$name"
done
# "--opt VALUE" is "--opt=VALUE": the value reaches the device
expect 1 "^mlx4emu: --ports / MLX4EMU_PORTS: 3 is not in \[1, 2\]$" -- "$run" --ports 3 ibv_devices
expect_no_device "$run" --cqe-size=48 -- ibv_devices
expect_no_device "$run" --doorbell=ring -- ibv_devices
# a good setting still gives the device, in either option form
"$run" --link-layer eth -- ibv_devinfo | grep -q "link_layer:.*Ethernet" || \
	{ echo "FAIL: --link-layer eth did not give an Ethernet port" >&2; fails=$((fails + 1)); }
# a good setting still gives the device
"$run" -- ibv_devices | grep -q mlx4_0 || { echo "FAIL: no device with good settings" >&2; fails=$((fails + 1)); }
exit $fails
