# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The echo server and client under pytest, each in its own process on
the software ConnectX-3. ECHO_SERVER and ECHO_CLIENT name the programs,
MLX4EMU_RUN the launcher (default: mlx4emu-run on PATH)."""
import os
import subprocess

import pytest

RUN = os.environ.get("MLX4EMU_RUN", "mlx4emu-run")
SERVER = os.environ["ECHO_SERVER"]
CLIENT = os.environ["ECHO_CLIENT"]


def run_pair(tmp_path, options, count):
    port_file = tmp_path / "port"
    server = subprocess.Popen([RUN, *options, "--", SERVER, "--port-file", str(port_file)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        client = subprocess.run([RUN, *options, "--", CLIENT, "--port-file", str(port_file),
                                 "-n", str(count), "127.0.0.1"],
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


def test_faults_are_counted(tmp_path):
    # with a fault set, each process prints its wire's counts at exit
    client, server_status, _ = run_pair(tmp_path, ["--wire-dup=10"], 100)
    assert client.returncode == 0 and server_status == 0, client.stderr
    assert "mlx4emu: wire faults (seed 1): of " in client.stderr
