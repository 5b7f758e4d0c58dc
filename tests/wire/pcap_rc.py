#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""Dissects the captures of `rc_pair -m ops` with tshark and compares every
header field Wireshark shows with what the client posted.

usage: pcap_rc.py CLIENT_PCAP SERVER_PCAP CLIENT_OUTPUT

CLIENT_OUTPUT is the client's output, whose "rc_pair:" line names the QPNs,
the client's first PSN and the server's rkey and buffer address.  The
client's operations (rc_pair.c ops_client, path MTU 1024) are, by PSN
offset from that first PSN:

   0..7   RDMA WRITE of 8192 bytes: FIRST (RETH), 6 MIDDLE, LAST
   8      RDMA READ request of 8192 bytes (RETH); 8 responses 8..15
  16, 17  fetch-and-add 5, 7 at +16384 (AtomicETH); the counter was 100
  18, 19  compare-and-swap 0xaa -> 0xbb, 0xaa -> 0xcc at +16392
  20..22  SEND with immediate 0x12345678, 3000 bytes: FIRST, MIDDLE, LAST
  23      RDMA WRITE with immediate 0xcafe, 100 bytes (RETH)
  24      SEND of 16 bytes after the server exited: sent retry_cnt + 1
          times (retry_cnt from the "rc_pair:" line), never answered

and the payloads are rc_pair's pattern(i, seed).  Every frame of both
captures: RoCEv2, not malformed, no expert error, P_Key 0xffff, MigReq,
header version 0, the pad count of its payload, DestQP of the peer, and
an ICRC (the field Wireshark shows) equal to the CRC-32 of the masked
pseudo-header and packet computed here from the frame's bytes (IBTA
A17.8: 8 bytes of ones for the LRH, IPv4 TOS, TTL and checksum, UDP
checksum and the BTH reserved byte set to ones).  Responses: READ
responses FIRST and LAST with AETH, MIDDLE without, the bytes of the
server's buffer; ATOMIC ACKNOWLEDGE with the original values 100, 105,
0xaa, 0xbb; AETHs of kind ACK whose credit count grants the client at
most half of the server's receive buffer, code 20 (emu/transport/link_grants.h)
and the MSN
of the messages through their PSN (a READ counts from its request).  The server's capture holds the same
packets, less the SENDs that found it gone.  Exit 0 when all holds.
"""
import re
import struct
import subprocess
import sys
import zlib

from roce_pcap import frames as pcap_frames

MTU = 1024
FIELDS = [
    "frame.number", "udp.dstport", "infiniband.bth.opcode", "infiniband.bth.se",
    "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.tver",
    "infiniband.bth.p_key", "infiniband.bth.destqp", "infiniband.bth.a",
    "infiniband.bth.psn", "infiniband.reth.va", "infiniband.reth.r_key",
    "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
    "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh.origremdt", "infiniband.immdt", "infiniband.invariant.crc",
    "data.data", "_ws.malformed", "_ws.expert.severity",
]
REQUESTS = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 19, 20}
errors = []


def fail(msg):
    errors.append(msg)


def pattern(i, seed):
    return (i * 7 + seed + (i >> 8)) & 0xff


def pattern_bytes(start, length, seed):
    return bytes(pattern(i, seed) for i in range(start, start + length))


def icrc(frame):
    """The ICRC of an Ethernet/IPv4/UDP RoCEv2 frame, as the 32-bit value
    of its 4 bytes read in network order (how Wireshark shows it)."""
    ihl = (frame[14] & 0x0f) * 4
    ip = bytearray(frame[14:14 + ihl])
    udp = bytearray(frame[14 + ihl:14 + ihl + 8])
    ib = bytearray(frame[14 + ihl + 8:-4])
    ip[1] = 0xff
    ip[8] = 0xff
    ip[10:12] = b"\xff\xff"
    udp[6:8] = b"\xff\xff"
    ib[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(ib))
    return struct.unpack(">I", struct.pack("<I", crc))[0], frame[-4:]


def num(v):
    if v == "":
        return None
    v = v.split(",")[0]
    return int(v, 0) if v.lower().startswith("0x") else int(v)


def dissect(path):
    out = subprocess.run(
        ["tshark", "-r", path, "-d", "udp.port==4791,infiniband", "-T", "fields",
         "-E", "separator=\t", "-E", "occurrence=f"] + sum((["-e", f] for f in FIELDS), []),
        capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        cells = line.split("\t")
        cells += [""] * (len(FIELDS) - len(cells))
        rows.append(dict(zip(FIELDS, cells)))
    return rows


def common(path, rows, frames, local_qpn, remote_qpn):
    """Checks every frame's framing, fixed BTH fields and ICRC."""
    if len(rows) != len(frames) or not rows:
        fail(f"{path}: tshark shows {len(rows)} frames, the file holds {len(frames)}")
    for r, raw in zip(rows, frames):
        n = r["frame.number"]
        if r["udp.dstport"] != "4791" or r["infiniband.bth.opcode"] == "":
            fail(f"{path} frame {n}: not RoCEv2")
            continue
        if r["_ws.malformed"] or r["_ws.expert.severity"] == "8388608":
            fail(f"{path} frame {n}: malformed or an expert error")
        op = num(r["infiniband.bth.opcode"])
        payload = bytes.fromhex(r["data.data"].replace(":", ""))
        want_qpn = remote_qpn if op in REQUESTS else local_qpn
        for field, want in (("infiniband.bth.p_key", 0xffff), ("infiniband.bth.m", 1),
                            ("infiniband.bth.tver", 0), ("infiniband.bth.se", 0),
                            ("infiniband.bth.destqp", want_qpn),
                            ("infiniband.bth.padcnt", -len(payload) % 4)):
            got = num(r[field].replace("True", "1").replace("False", "0"))
            if got != want:
                fail(f"{path} frame {n}: {field} {got}, expected {want}")
        want_crc, tail = icrc(raw)
        if num(r["infiniband.invariant.crc"]) != want_crc:
            fail(f"{path} frame {n}: ICRC {r['infiniband.invariant.crc']} (bytes {tail.hex()}),"
                 f" computed 0x{want_crc:08x}")


def psn_off(r, first_psn):
    return (num(r["infiniband.bth.psn"]) - first_psn) & 0xffffff


def check_request(r, k, remote_addr, rkey):
    """A request at PSN offset k: opcode, AckReq, RETH/AtomicETH, ImmDt, payload."""
    n, op = r["frame.number"], num(r["infiniband.bth.opcode"])
    payload = bytes.fromhex(r["data.data"].replace(":", ""))
    reth = atomic = imm = None
    if k <= 7:
        want_op, ack, data = (6 if k == 0 else 8 if k == 7 else 7), k == 7, (k * MTU, MTU, 1)
        reth = (0, 8192) if k == 0 else None
    elif 8 <= k <= 15:
        # a READ resumed after response k - 8 asks for the rest only
        want_op, ack, data = 12, True, None
        reth = (8192 + (k - 8) * MTU, 8192 - (k - 8) * MTU)
    elif 16 <= k <= 19:
        want_op, ack, data = (20 if k < 18 else 19), True, None
        atomic = {16: (16384, 5, 0), 17: (16384, 7, 0), 18: (16392, 0xbb, 0xaa),
                  19: (16392, 0xcc, 0xaa)}[k]
    elif 20 <= k <= 22:
        want_op, ack = (0, 1, 3)[k - 20], k == 22
        data = ((k - 20) * MTU, MTU if k < 22 else 3000 - 2 * MTU, 3)
        imm = 0x12345678 if k == 22 else None
    elif k == 23:
        want_op, ack, data, reth, imm = 11, True, (0, 100, 4), (24576, 100), 0xcafe
    elif k == 24:
        want_op, ack, data = 4, True, (0, 16, 3)
    else:
        fail(f"frame {n}: a request at PSN offset {k}, beyond what was posted")
        return
    if op != want_op:
        fail(f"frame {n}: opcode {op} at PSN offset {k}, expected {want_op}")
        return
    if num(r["infiniband.bth.a"].replace("True", "1").replace("False", "0")) != int(ack):
        fail(f"frame {n}: AckReq {r['infiniband.bth.a']} at PSN offset {k}")
    # Wireshark 4.0 shows the VA and R_Key of an AtomicETH as the RETH's
    # fields (reth.va, reth.r_key), with no DMA length
    got_reth = got_atomic = None
    if r["infiniband.reth.va"]:
        va = num(r["infiniband.reth.va"]) - remote_addr
        if num(r["infiniband.reth.r_key"]) != rkey:
            fail(f"frame {n}: R_Key {r['infiniband.reth.r_key']}, expected 0x{rkey:x}")
        if r["infiniband.atomiceth.swapdt"]:
            got_atomic = (va, num(r["infiniband.atomiceth.swapdt"]),
                          num(r["infiniband.atomiceth.cmpdt"]))
        else:
            got_reth = (va, num(r["infiniband.reth.dmalen"]))
    if got_reth != reth:
        fail(f"frame {n}: RETH (offset, length) {got_reth}, expected {reth}")
    if got_atomic != atomic:
        fail(f"frame {n}: AtomicETH (offset, swap/add, compare) {got_atomic}, expected {atomic}")
    got_imm = int(r["infiniband.immdt"].split(",")[0], 16) if r["infiniband.immdt"] else None
    if got_imm != imm:
        fail(f"frame {n}: ImmDt {got_imm}, expected {imm}")
    want_payload = pattern_bytes(*data) if data else b""
    if payload != want_payload:
        fail(f"frame {n}: {len(payload)} payload bytes, not the {len(want_payload)} posted")


# The PSN offsets at which the responder's MSN moves on: the last packet
# of a SEND or WRITE, an atomic, and a READ at its request (IBTA C9-148,
# as the kernel's rxe counts it): every response carries the MSN so far.
MESSAGE_ENDS = [7, 8, 16, 17, 18, 19, 22, 23]


def msn_at(k):
    return sum(1 for e in MESSAGE_ENDS if e <= k)


def check_response(r, k):
    n, op = r["frame.number"], num(r["infiniband.bth.opcode"])
    payload = bytes.fromhex(r["data.data"].replace(":", ""))
    syndrome, msn = num(r["infiniband.aeth.syndrome"]), num(r["infiniband.aeth.msn"])
    if op in (13, 14, 15):
        if not 8 <= k <= 15 or op != (13 if k == 8 else 15 if k == 15 else 14):
            fail(f"frame {n}: READ response opcode {op} at PSN offset {k}")
        if (syndrome is None) != (op == 14):
            fail(f"frame {n}: READ response {op} with AETH {syndrome}")
        if payload != pattern_bytes((k - 8) * MTU, MTU, 2):
            fail(f"frame {n}: READ response bytes are not the server's at {(k - 8) * MTU}")
    elif op == 18:
        orig = {16: 100, 17: 105, 18: 0xaa, 19: 0xbb}.get(k)
        if num(r["infiniband.atomicacketh.origremdt"]) != orig:
            fail(f"frame {n}: AtomicAckETH {r['infiniband.atomicacketh.origremdt']} at PSN "
                 f"offset {k}, expected {orig}")
    elif op == 17:
        if not 0 <= k <= 23:
            fail(f"frame {n}: ACK of PSN offset {k}, beyond the requests answered")
    else:
        fail(f"frame {n}: response opcode {op}")
        return
    # an ACK (kind 0) whose credit code grants the one client at most the
    # pool of the server's port: half of the 8 MiB the kernel lets a socket
    # charge when 4 MiB is asked for (socket(7): it doubles the value),
    # 1024 units of 4 KiB (code 20 of IBTA table 45; 31 would be no grant)
    if op != 14 and (syndrome & 0xe0 or (syndrome & 0x1f) > 20 or msn != msn_at(k)):
        fail(f"frame {n}: AETH syndrome {syndrome:#x} MSN {msn} at PSN offset {k}, expected "
             f"an ACK granting at most code 20 and {msn_at(k)}")


def main():
    client_pcap, server_pcap, client_out = sys.argv[1:4]
    m = re.search(r"rc_pair: local QPN (0x\w+) PSN (0x\w+) rkey \w+ addr \w+, remote QPN "
                  r"(0x\w+) PSN \w+ rkey (0x\w+) addr (0x\w+), timeout \d+ retry_cnt (\d+)",
                  open(client_out).read())
    if not m:
        print("FAIL: no rc_pair line in the client's output")
        return 1
    local_qpn, first_psn, remote_qpn, rkey, remote_addr = (int(x, 16) for x in m.groups()[:5])
    retry_cnt = int(m.group(6))
    client = dissect(client_pcap)
    server = dissect(server_pcap)
    common(client_pcap, client, pcap_frames(client_pcap), local_qpn, remote_qpn)
    common(server_pcap, server, pcap_frames(server_pcap), remote_qpn, local_qpn)
    seen, copies = {}, {}
    for r in client:
        if r["infiniband.bth.opcode"] == "":
            continue
        op, k = num(r["infiniband.bth.opcode"]), psn_off(r, first_psn)
        key = (op, k)
        copies[key] = copies.get(key, 0) + 1
        if op in REQUESTS:
            check_request(r, k, remote_addr, rkey)
        else:
            check_response(r, k)
        seen.setdefault(key, r)
    # every packet of every message, and the answers the client needed
    for k in list(range(0, 9)) + list(range(16, 25)):
        if not any(kk == k and op in REQUESTS for op, kk in seen):
            fail(f"no request at PSN offset {k}")
    for key in [(13, 8)] + [(14, k) for k in range(9, 15)] + [(15, 15)] + \
               [(18, k) for k in range(16, 20)] + [(17, 23)]:
        if key not in seen:
            fail(f"no response opcode {key[0]} at PSN offset {key[1]}")
    if copies.get((4, 24)) != retry_cnt + 1:
        fail(f"the SEND to the server that is gone went out {copies.get((4, 24))} times, "
             f"expected retry_cnt + 1 = {retry_cnt + 1}")
    # the server saw the same packets, less the SENDs after it exited
    server_keys = {(num(r["infiniband.bth.opcode"]), psn_off(r, first_psn)) for r in server
                   if r["infiniband.bth.opcode"] != ""}
    client_keys = set(seen) - {(4, 24)}
    if server_keys != client_keys:
        fail(f"the captures differ: only the client's {sorted(client_keys - server_keys)}, "
             f"only the server's {sorted(server_keys - client_keys)}")
    for e in errors:
        print("FAIL:", e)
    print(f"pcap rc: {len(client)} client frames, {len(server)} server frames, "
          f"{len(seen)} distinct packets, {len(errors)} difference(s)")
    if not errors:
        print("PASS: every RC header field and ICRC as posted")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
