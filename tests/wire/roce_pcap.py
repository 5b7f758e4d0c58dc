# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The RoCEv2 packets of a capture the device wrote (--pcap): libpcap,
Ethernet, IPv4, UDP 4791, BTH and what follows, ICRC last.  Read here
without tshark, for checkers that follow PSNs rather than fields."""
import struct

PSN_MASK = 0xffffff
# AETH syndrome: kind in bits 7..5 (0 ACK, 1 RNR NAK, 3 NAK), NAK code below
AETH_NAK_PSN_SEQ = 0x60
ACKNOWLEDGE = 0x11
# RC and UC opcodes (low 5 bits) of the responses an RC responder sends
RESPONSES = {0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12}


class Packet:
    """One captured packet: its IPv4 source and destination (ints), the
    BTH fields, the AETH syndrome when it has one, the bytes after the
    BTH (ICRC excluded)."""

    def __init__(self, index, src, dst, ib):
        self.index, self.src, self.dst = index, src, dst
        self.opcode = ib[0]
        self.dest_qpn = struct.unpack(">I", ib[4:8])[0] & PSN_MASK
        self.ack_req = bool(ib[8] & 0x80)
        self.psn = struct.unpack(">I", ib[8:12])[0] & PSN_MASK
        self.rest = ib[12:-4]
        self.pad = (ib[1] >> 4) & 3

    @property
    def is_response(self):
        return self.opcode < 0x20 and (self.opcode & 0x1f) in RESPONSES

    @property
    def syndrome(self):
        """The AETH syndrome of an ACKNOWLEDGE (and READ response first,
        last, only), None otherwise."""
        if self.opcode in (0x0d, 0x0f, 0x10, 0x11, 0x12):
            return self.rest[0]
        return None

    @property
    def is_seq_nak(self):
        return self.opcode == ACKNOWLEDGE and self.syndrome == AETH_NAK_PSN_SEQ


def frames(path):
    """The frames of a libpcap file, in order."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    order = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack(order + "IIII", data[off:off + 16])[2]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def packets(path):
    """The RoCEv2 packets of the capture at path, in capture order."""
    out = []
    for i, f in enumerate(frames(path)):
        if len(f) < 14 + 20 + 8 + 12 + 4 or f[12:14] != b"\x08\x00":
            continue
        ihl = (f[14] & 0x0f) * 4
        udp = 14 + ihl
        if f[23] != 17 or struct.unpack(">H", f[udp + 2:udp + 4])[0] != 4791:
            continue
        src, dst = struct.unpack(">II", f[26:34])
        out.append(Packet(i + 1, src, dst, f[udp + 8:]))
    return out


def psn_diff(a, b):
    """a - b modulo 2^24 as a signed distance: > 0 when a is later."""
    d = (a - b) & PSN_MASK
    return d - (1 << 24) if d & 0x800000 else d


def _splitmix64(state):
    state = (state + 0x9e3779b97f4a7c15) & (2**64 - 1)
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & (2**64 - 1)
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & (2**64 - 1)
    return state, z ^ (z >> 31)


def drops(seed, percent, port=1):
    """The fates of the frames a port sends under --wire-drop=PERCENT
    --wire-seed=SEED and no other fault, as emu/wire/faults.c draws them
    (one draw per frame): True for each frame dropped, in order."""
    ppm = round(percent * 10000)
    state = (seed ^ (0x5851f42d4c957f2d * port)) & (2**64 - 1)
    state, rng = _splitmix64(state)
    while True:
        rng, z = _splitmix64(rng)
        yield ((z >> 32) * 1000000 >> 32) < ppm
