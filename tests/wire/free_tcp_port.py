#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Prints a TCP port that no socket is bound to: the kernel's pick of an
ephemeral one (bind to port 0 on every IPv4 address), released at once so
that the server handed it binds it. Parallel tests get different ones,
where ports drawn at random or derived from process IDs meet; a server
that still loses the port to another bind exits before listening, which
pair.sh retries."""
import socket

with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
    s.bind(("", 0))
    print(s.getsockname()[1])
