# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The echo server and client under pytest, each in its own process on
the software ConnectX-3. ECHO_SERVER and ECHO_CLIENT name the programs,
MLX4EMU_RUN the launcher (default: mlx4emu-run on PATH)."""
import os
import re
import subprocess

import pytest

RUN = os.environ.get("MLX4EMU_RUN", "mlx4emu-run")
SERVER = os.environ["ECHO_SERVER"]
CLIENT = os.environ["ECHO_CLIENT"]


def run_pair(tmp_path, options, count, size=4096):
    port_file = tmp_path / "port"
    server = subprocess.Popen([RUN, *options, "--", SERVER, "--port-file", str(port_file)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        client = subprocess.run([RUN, *options, "--", CLIENT, "--port-file", str(port_file),
                                 "-n", str(count), "-s", str(size), "127.0.0.1"],
                                capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        server.kill()
        raise
    if client.returncode != 0:
        server.kill()  # it would wait for the client that failed
    server_out, _ = server.communicate(timeout=120)
    return client, server.returncode, server_out


@pytest.mark.parametrize("options", [[], ["--link-layer=eth"], ["--wire-dup=5", "--wire-seed=3"]],
                         ids=["ib", "roce", "dup5"])
def test_echo(tmp_path, options):
    client, server_status, server_out = run_pair(tmp_path, options, 200)
    assert client.returncode == 0, client.stderr
    assert server_status == 0, server_out
    assert "200 messages of 4096 bytes echoed and checked" in client.stdout


# Late, overtaken and lost packets: every message still echoed exactly once
# (each echo is checked against its own message), within the retries.
@pytest.mark.parametrize("options", [["--wire-delay=2000:5", "--wire-seed=4"],
                                     ["--wire-reorder=5", "--wire-seed=4"],
                                     ["--wire-drop=2", "--wire-seed=4"]],
                         ids=["delay", "reorder", "drop"])
def test_echo_recovers(tmp_path, options):
    client, server_status, server_out = run_pair(tmp_path, options, 200, 1024)
    assert client.returncode == 0, client.stderr
    assert server_status == 0, server_out
    assert "200 messages of 1024 bytes echoed and checked" in client.stdout


def test_faults_are_counted(tmp_path):
    # with a fault set, each process prints its wire's counts at exit
    client, server_status, _ = run_pair(tmp_path, ["--wire-drop=10"], 100, 1024)
    assert client.returncode == 0 and server_status == 0, client.stderr
    counts = re.search(r"mlx4emu: wire faults \(seed 1\): of (\d+) frames sent, (\d+) dropped",
                       client.stderr)
    assert counts and int(counts.group(2)) > 0, client.stderr
