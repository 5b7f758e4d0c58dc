/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Frames between adapters: a RoCEv2 packet (BTH ... payload, pad, ICRC) is
 * the payload of one UDP datagram from the port's address:4791 to the
 * peer's address:4791.  Outgoing packets are copied into a queue (with
 * emu_link_queue_ref() only their headers are, the kernel reading the
 * payload in place) and sent in batches (sendmmsg) by emu_link_flush(),
 * runs of equal-length packets to one peer as one segmented send
 * (UDP_SEGMENT) that the kernel cuts
 * into one datagram per packet; incoming ones are read in batches
 * (recvmmsg, with UDP_GRO so that the kernel may hand over a run of one
 * peer's datagrams at once) and handed out one packet each with their
 * ICRC checked and removed.
 * Called by the engine thread only (the adapter lock held).
 */
#ifndef MLX4EMU_WIRE_LINK_H
#define MLX4EMU_WIRE_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* Longest packet: BTH + extended headers + 4096-byte payload + ICRC. */
#define EMU_LINK_MAX_PACKET (48 + 4096 + 4 + 4)

/*
 * Queues one packet from `port` to `dst` (IPv4, host order): `hdr` is the
 * BTH (PadCnt already set for the payload) and the extended headers, the
 * payload follows in `iov` (at most 4096 bytes); pad bytes and the ICRC
 * are added here.  Everything is copied: the caller's memory may change
 * once this returns.  Flushes by itself when the queue is full.  Returns
 * 0, or EMSGSIZE for a payload over 4096 bytes.
 */
int emu_link_queue(unsigned port, uint32_t dst, const uint8_t *hdr, size_t hdr_len,
		   const struct iovec *iov, int iovcnt);

/* Payload ranges a packet queued by reference may point at. */
#define EMU_LINK_REF_IOV 4

/*
 * As emu_link_queue(), but the payload is not copied: it is read for the
 * ICRC here, under a recovery point (base/guard.h), and by the kernel when
 * the queue is flushed, so it must stay mapped and unchanged until then.
 * This is how an adapter's DMA reads registered memory as it sends, and
 * it spares the engine a copy of every byte.  A payload in more than
 * EMU_LINK_REF_IOV ranges, or one sent while faults on the wire or the
 * capture are on (which handle whole packets), is copied instead.
 * Returns 0, EMSGSIZE as emu_link_queue(), or EFAULT when reading the
 * payload faulted (nothing is queued).  Whoever holds the adapter lock
 * flushes before releasing it (emu_engine_flush_wire), so no packet
 * still points at memory a command deregistered.
 * Memory unmapped after this returns makes the flush lose the packet
 * (counted in tx_lost), as a send the kernel refuses does.
 */
int emu_link_queue_ref(unsigned port, uint32_t dst, const uint8_t *hdr, size_t hdr_len,
		       const struct iovec *iov, int iovcnt);

/* Sends every queued packet; returns how many were handed to the kernel
 * (a full socket buffer or an unreachable peer loses the rest, as a
 * congested or broken link would). */
int emu_link_flush(void);

/*
 * Frames held by the faults on the wire (wire/faults.h): sends those whose
 * time has come (now_ns: CLOCK_MONOTONIC) and returns how many; the time
 * the next one is due, UINT64_MAX when none is held.
 */
int emu_link_release_held(uint64_t now_ns);
uint64_t emu_link_next_held(void);

/* One received packet: BTH to the end of the payload (pad included). */
struct emu_rx {
	uint32_t src;		/* sender's address, host order */
	unsigned port;		/* port it arrived on */
	const uint8_t *pkt;
	size_t len;		/* without the ICRC */
};

/* Packets one emu_link_recv() call may hand out at most. */
#define EMU_LINK_RX_MAX 2048

/*
 * Reads the packets that arrived on `port` (non-blocking) into rx[0, max):
 * max / 64 datagrams at most (at most EMU_LINK_RX_MAX / 64), as one
 * datagram that UDP receive offload coalesced holds up to 64 packets of
 * one peer, cut apart here.  Packets with a bad ICRC, too short, or not
 * from port 4791 are dropped and counted.  The buffers stay valid until
 * the next call.  Returns the number of packets; *more is set when every
 * datagram slot was filled (more may be waiting).
 */
int emu_link_recv(unsigned port, struct emu_rx *rx, int max, bool *more);

/* What a port's RoCEv2 socket carried and lost (port 1 or 2). */
struct emu_link_counters {
	uint64_t tx_packets;	/* handed to the kernel */
	uint64_t tx_lost;	/* refused on send (socket buffer full, a
				 * peer gone), or discarded for a peer that
				 * drains nothing (datagram credits) */
	uint64_t rx_packets;	/* received with a good ICRC */
	uint64_t rx_overflow;	/* dropped by a full receive buffer
				 * (SO_RXQ_OVFL) */
	uint64_t rx_bad;	/* a bad ICRC, too short, or truncated */
	uint64_t rx_bad_icrc;	/* of rx_bad: whole, but the ICRC differs */
	uint64_t rx_refused;	/* not from UDP port 4791, or whole and
				 * sound but no QP took it: the receive
				 * checks (transport/admission.h) */
	/* link packets (the datagram credits, transport/datagram_credits.h),
	 * counted apart as InfiniBand's port counters leave out its flow
	 * control packets: the counts above are the data's */
	uint64_t tx_credits;	/* handed to the kernel */
	uint64_t tx_credits_lost;	/* refused on send */
	uint64_t rx_credits;	/* received with a good ICRC */
};

void emu_link_counters(unsigned port, struct emu_link_counters *out);
/*
 * The exit report of `port`: one line on stderr of what its socket carried
 * and lost, printed when the socket saw any packet and something was lost
 * (ud_no_wqe counts), or whenever it saw one with --debug, so that no loss
 * is silent.  ud_no_wqe is the adapter's count of UD datagrams the port
 * had no receive WQE for (adapter/port.h), which the line shows beside
 * the wire's.
 */
void emu_link_report(unsigned port, uint64_t ud_no_wqe);
/* One packet of `port` the receive checks dropped (rx_refused). */
void emu_link_count_refused(unsigned port);
/* `packets` the transport discarded instead of sending them (tx_lost):
 * for a peer that drains nothing (transport/datagram_credits.h). */
void emu_link_count_discarded(unsigned port, unsigned packets);

#endif
