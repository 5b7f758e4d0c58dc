/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Ethernet frames between adapters (raw frames, and the frames of UD
 * multicast datagrams, transport/ud.c).  Each port is a VXLAN
 * tunnel endpoint (RFC 7348) on its address: a frame is the payload of one
 * UDP datagram from the port's address:4789 to the receiving port's
 * address:4789, behind the 8-byte VXLAN header (byte 0 = 0x08, "VNI
 * valid"; bytes 4..6 = the 24-bit VNI, the sender's wire segment
 * MLX4EMU_WIRE_SEGMENT, 0 when it has none; the rest zero).  Outgoing
 * frames are copied into a queue and sent in batches (sendmmsg) by
 * emu_vxlan_flush(); incoming ones are read in batches (recvmmsg).
 *
 * A receiving port takes only frames of its own segment (the VNI its own
 * frames carry, 0 when it has none): there, a frame for its own MAC, and
 * any other (broadcast, multicast, another unicast MAC: a flood) only when
 * it is on a segment.  Every frame lost on the way is counted: a send the
 * kernel refuses (socket buffer full, no route), a frame longer than any
 * port's MTU allows, the receive socket's overflow (the kernel's
 * SO_RXQ_OVFL count), a datagram that is not a VXLAN frame, a frame of
 * another segment.
 *
 * Called by the engine thread (the adapter lock held), counters by anyone.
 */
#ifndef MLX4EMU_WIRE_VXLAN_H
#define MLX4EMU_WIRE_VXLAN_H

#include <stddef.h>
#include <stdint.h>

#define EMU_VXLAN_UDP_PORT 4789
#define EMU_VXLAN_HDR_BYTES 8
/* Frames one emu_vxlan_recv() call reads at most. */
#define EMU_VXLAN_BATCH 32
/* The longest frame any port takes: MTU 9978 + header, two tags. */
#define EMU_VXLAN_MAX_FRAME (9978 + 22)

/*
 * Binds a socket to address:4789 of every port (an InfiniBand port's
 * carries its multicast datagrams).  A port whose bind fails (another
 * program has that UDP port there) keeps its frames in the adapter: one
 * line on stderr says so, and frames it would send to other adapters are
 * counted lost.  Returns 0.
 */
int emu_vxlan_open(void);
void emu_vxlan_close(void);
/* The port's socket, -1 when it has none. */
int emu_vxlan_socket(unsigned port);

/*
 * Queues a frame (destination MAC first, no FCS) from `port` to the
 * Ethernet port at `dst` (IPv4, host order); copied, flushed by itself
 * when the queue is full.
 */
void emu_vxlan_queue(unsigned port, uint32_t dst, const uint8_t *frame, size_t len);
/* Sends every queued frame; returns how many were queued. */
int emu_vxlan_flush(void);

/* A received frame, valid until the next emu_vxlan_recv(). */
struct emu_vxlan_rx {
	uint32_t src;		/* the sending port's address, host order */
	const uint8_t *frame;
	size_t len;
};

/* Reads up to `max` frames that arrived on `port` (non-blocking) and
 * returns their number. */
int emu_vxlan_recv(unsigned port, struct emu_vxlan_rx *rx, int max);

/* What crossed a port's tunnel, and what was lost there. */
struct emu_vxlan_counters {
	uint64_t tx_frames;	/* handed to the kernel */
	uint64_t rx_frames;	/* taken */
	uint64_t tx_lost;	/* refused by the kernel, oversize, no socket */
	uint64_t rx_overflow;	/* dropped by the receive socket (SO_RXQ_OVFL) */
	uint64_t rx_bad;	/* not a VXLAN frame, or a frame of another segment */
};
void emu_vxlan_counters(unsigned port, struct emu_vxlan_counters *out);
/*
 * The exit report of an Ethernet `port`'s tunnel: one line on stderr of
 * what crossed it and what was lost, printed when the tunnel saw any frame
 * and something was lost (no_wqe counts), or whenever it saw one with
 * --debug.  no_wqe is the adapter's count of frames a raw QP or WQ of the
 * port had no receive WQE for (adapter/port.h), which the line shows
 * beside the tunnel's.  An InfiniBand port has no tunnel and prints
 * nothing.
 */
void emu_vxlan_report(unsigned port, uint64_t no_wqe);
/* A frame the port took but nobody above could use (rx_bad). */
void emu_vxlan_count_bad(unsigned port);

#endif
