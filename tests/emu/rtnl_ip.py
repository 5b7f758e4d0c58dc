#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The ports' interfaces as NETLINK_ROUTE shows them to a program under
the launcher: stock iproute2 (`ip -j`) run as the launched program.

  rtnl_ip.py MLX4EMU_RUN IP PYTHON

One adapter with an Ethernet port (--ifname=rt0, address 127.253.6.1) and
one with an InfiniBand and an Ethernet port (rt2 on port 2).  Checked:
the link dump lists the kernel's interfaces and rt0 once, with the index
if_nametoindex() gives under the launcher (ioctl path, os/netif_ioctl.c),
the MAC that SIOCGIFHWADDR gives and that GID 0's EUI-64 names, the MTU
of SIOCGIFMTU, up and running; the address dump and `ip addr show dev
rt0` give 127.253.6.1/16 with its broadcast; an IPv6 dump of rt0 is empty
(the ports have IPv4 addresses only) and not an error; `ip link show dev`
of a name nobody has still fails.  The InfiniBand port's interface is
IPoIB's ib0 (--ifname names Ethernet ports only): an infiniband link
whose 20-byte address is flags and QPN 80:00:00:48 then GID 0 of the
port as ibv_devinfo shows it, with IPoIB's broadcast address and its
2044-byte MTU, the same through SIOCGIFHWADDR (ARPHRD_INFINIBAND, the
first 14 bytes), SIOCGIFMTU and if_nametoindex, carrying port 1's
address.  Exit 0 (PASS), 1 (FAIL).
"""
import json
import re
import subprocess
import sys

RUN, IP, PYTHON = sys.argv[1:4]
ETH = ["--link-layer=eth", "--addr=127.253.6.1", "--ifname=rt0"]
TWO = ["--ports=2", "--link-layer=ib,eth", "--addr=127.253.6.2,127.253.6.3", "--ifname=rt1,rt2"]

# Run under the launcher, in its own process (each launch is one adapter):
# the interface's index, MTU and MAC through the C library's calls.
PROBE = r"""
import fcntl, socket, struct, sys
name = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = struct.pack("16s16x", name.encode())
mtu = struct.unpack("16si12x", fcntl.ioctl(s, 0x8921, req))[1]       # SIOCGIFMTU
hw = fcntl.ioctl(s, 0x8927, req)[18:24]                              # SIOCGIFHWADDR
print(socket.if_nametoindex(name), mtu, ":".join("%02x" % b for b in hw))
"""
# The same for an IPoIB interface: the hardware type and the 14 bytes of
# the 20-byte address that sa_data holds.
PROBE_IB = r"""
import fcntl, socket, struct, sys
name = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
req = struct.pack("16s16x", name.encode())
mtu = struct.unpack("16si12x", fcntl.ioctl(s, 0x8921, req))[1]       # SIOCGIFMTU
hw = fcntl.ioctl(s, 0x8927, req)                                     # SIOCGIFHWADDR
family = struct.unpack("H", hw[16:18])[0]
print(socket.if_nametoindex(name), mtu, family, ":".join("%02x" % b for b in hw[18:32]))
"""
IPOIB_BROADCAST = "00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff"
failures = []


def launch(opts, *cmd, ok=True):
    r = subprocess.run([RUN, *opts, "--", *cmd], capture_output=True, text=True, timeout=60)
    if ok and r.returncode != 0:
        sys.exit("FAIL: %s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
    return r


def ip_json(opts, *args):
    return json.loads(launch(opts, IP, "-j", *args).stdout or "[]")


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAILED:", what)


def gid0(opts):
    """GID 0 of the first port as ibv_devinfo -v shows it, 16 bytes."""
    out = launch(opts, "ibv_devinfo", "-v").stdout
    m = re.search(r"GID\[ *0\]:\s+(fe80(?::0000){3}:[0-9a-f]{4}(?::[0-9a-f]{4}){3})", out)
    if not m:
        sys.exit("FAIL: no link-local GID 0 in ibv_devinfo -v")
    return bytes.fromhex(m.group(1).replace(":", ""))


def mac_of_gid0(opts):
    eui = gid0(opts)[8:]
    return ":".join("%02x" % b for b in bytes([eui[0] ^ 2]) + eui[1:3] + eui[5:8])


def one(entries, name):
    found = [e for e in entries if e.get("ifname") == name]
    check(len(found) == 1, "%s listed once (%d times)" % (name, len(found)))
    return found[0] if found else {}


index, mtu, mac = launch(ETH, PYTHON, "-I", "-c", PROBE, "rt0").stdout.split()
print("rt0 under the launcher: if_nametoindex %s, SIOCGIFMTU %s, SIOCGIFHWADDR %s" % (index, mtu, mac))
check(mac == mac_of_gid0(ETH), "the MAC %s is GID 0's EUI-64 (%s)" % (mac, mac_of_gid0(ETH)))

links = ip_json(ETH, "link", "show")
check(any(e.get("ifname") == "lo" for e in links), "the kernel's lo is still listed")
link = one(links, "rt0")
check(str(link.get("ifindex")) == index, "rt0's ifindex %s is if_nametoindex's %s" %
      (link.get("ifindex"), index))
check(link.get("address") == mac, "rt0's address %s is %s" % (link.get("address"), mac))
check(str(link.get("mtu")) == mtu, "rt0's mtu %s is %s" % (link.get("mtu"), mtu))
check(link.get("link_type") == "ether", "rt0 is an Ethernet link")
check({"UP", "LOWER_UP"} <= set(link.get("flags", [])) and link.get("operstate") == "UP",
      "rt0 up and running: %s, %s" % (link.get("flags"), link.get("operstate")))

want_addr = {"family": "inet", "local": "127.253.6.1", "prefixlen": 16,
             "broadcast": "127.253.255.255", "label": "rt0"}
for args in (["addr", "show"], ["addr", "show", "dev", "rt0"], ["-4", "addr", "show"]):
    entry = one(ip_json(ETH, *args), "rt0")
    got = [{k: a.get(k) for k in want_addr} for a in entry.get("addr_info", [])]
    check(got == [want_addr], "ip %s: rt0's addresses %s" % (" ".join(args), got))

v6 = launch(ETH, IP, "-j", "-6", "addr", "show", "dev", "rt0", ok=False)
check(v6.returncode == 0 and not any(e.get("addr_info") for e in json.loads(v6.stdout or "[]")),
      "an IPv6 dump of rt0 is empty, not an error (exit %d: %s)" % (v6.returncode,
                                                                    v6.stderr.strip()))
missing = launch(ETH, IP, "link", "show", "dev", "rtnosuch", ok=False)
check(missing.returncode != 0, "a link nobody has is still refused")

two = ip_json(TWO, "addr", "show")
check(not any(e.get("ifname") == "rt1" for e in two), "--ifname does not name the InfiniBand port")
ib0 = one(two, "ib0")
want_ib = ":".join("%02x" % b for b in bytes([0x80, 0, 0, 0x48]) + gid0(TWO))
check(ib0.get("link_type") == "infiniband", "ib0 is an infiniband link: %s" % ib0.get("link_type"))
check(ib0.get("address") == want_ib, "ib0's address %s is %s" % (ib0.get("address"), want_ib))
check(ib0.get("broadcast") == IPOIB_BROADCAST, "ib0's broadcast %s" % ib0.get("broadcast"))
check(ib0.get("mtu") == 2044, "ib0's mtu %s is 2044" % ib0.get("mtu"))
check([a.get("local") for a in ib0.get("addr_info", [])] == ["127.253.6.2"],
      "ib0 carries port 1's address: %s" % ib0.get("addr_info"))
ib_index, ib_mtu, ib_family, ib_hw = launch(TWO, PYTHON, "-I", "-c", PROBE_IB, "ib0").stdout.split()
print("ib0 under the launcher: if_nametoindex %s, SIOCGIFMTU %s, SIOCGIFHWADDR family %s, %s" %
      (ib_index, ib_mtu, ib_family, ib_hw))
check(str(ib0.get("ifindex")) == ib_index, "ib0's ifindex %s is if_nametoindex's %s" %
      (ib0.get("ifindex"), ib_index))
check(ib_mtu == "2044" and ib_family == "32" and want_ib.startswith(ib_hw),
      "ib0's ioctls: MTU %s, type %s (32), address %s (the first 14 bytes of %s)" %
      (ib_mtu, ib_family, ib_hw, want_ib))
entry = one(two, "rt2")
check([a.get("local") for a in entry.get("addr_info", [])] == ["127.253.6.3"],
      "port 2's interface carries port 2's address: %s" % entry.get("addr_info"))

if failures:
    print("FAIL: %d check(s)" % len(failures))
    sys.exit(1)
print("PASS: the ports' interfaces in NETLINK_ROUTE agree with ioctl, if_nametoindex and the GIDs")
