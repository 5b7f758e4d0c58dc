// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* UDP datagrams carrying RoCEv2 packets, sent and read in batches. */
#include "wire/link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/config.h"
#include "base/guard.h"
#include "base/trace.h"
#include "wire/capture.h"
#include "wire/faults.h"
#include "wire/icrc.h"
#include "wire/mmsg.h"
#include "wire/identity.h"
#include "wire/roce.h"

#define BATCH 64
#define MAX_PAYLOAD 4096
/* UDP segmentation offload (UDP_SEGMENT, Linux 4.18): packets at most
 * per datagram (the kernel's UDP_MAX_SEGMENTS is 64 or more) and the UDP
 * payload limit of IPv4 */
#define GSO_MAX_SEGS 64
#define GSO_MAX_BYTES 65507u
/* one datagram as UDP receive offload (UDP_GRO) may coalesce it */
#define RX_MSG_BYTES 65536
#define RX_MSGS (EMU_LINK_RX_MAX / GSO_MAX_SEGS)

/*
 * A queued packet.  Most hold all of it in buf.  One queued by reference
 * (emu_link_queue_ref) holds its headers in buf[0, head_len), its pad and
 * ICRC in buf[head_len, head_len + tail_len), and points at its payload:
 * the kernel reads that when the queue is flushed.
 */
struct tx_slot {
	uint8_t buf[EMU_LINK_MAX_PACKET];
	size_t len;		/* the whole packet */
	size_t head_len, tail_len;
	unsigned nref;
	struct iovec ref[EMU_LINK_REF_IOV];
	unsigned port;
	struct sockaddr_in to;
};

static struct tx_slot tx[BATCH];
static unsigned ntx;

static uint64_t emu_link_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint8_t rx_buf[RX_MSGS][RX_MSG_BYTES];

/* What each port lost on the way (read by any thread, hence atomic). */
struct link_port {
	atomic_uint_fast64_t tx_packets, tx_lost, rx_packets, rx_overflow, rx_bad, rx_refused;
	atomic_uint_fast64_t rx_bad_icrc;	/* of rx_bad */
	/* link packets (datagram credits), apart from the data's counts */
	atomic_uint_fast64_t tx_credits, tx_credits_lost, rx_credits;
	uint32_t ovfl_seen;	/* the socket's SO_RXQ_OVFL count last read */
};

static struct link_port link_ports[2];

static void add(atomic_uint_fast64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}
/* cleared when the kernel refuses a segmented send: one datagram per
 * packet from then on */
static bool gso_ok = true;

/* The ICRC of a packet of `len` bytes (pad included, ICRC not) from its
 * IPv4/UDP pseudo header and its headers (hdr_len bytes, BTH first). */
static uint32_t icrc_start(const uint8_t *hdr, size_t hdr_len, size_t len, uint32_t src,
			   uint32_t dst)
{
	uint8_t ipudp[28];
	uint32_t crc;

	emu_ipv4_udp_header(ipudp, src, dst, EMU_ROCE_UDP_PORT, EMU_ROCE_UDP_PORT,
			    (uint16_t)(8 + len + EMU_ICRC_BYTES));
	crc = emu_icrc_begin(ipudp, hdr);
	return emu_icrc_update(crc, hdr + EMU_BTH_BYTES, hdr_len - EMU_BTH_BYTES);
}

/* Pads the packet, appends its ICRC; returns the length with it. */
static size_t seal(uint8_t *pkt, size_t len, uint32_t src, uint32_t dst)
{
	emu_icrc_final(icrc_start(pkt, len, len, src, dst), pkt + len);
	return len + EMU_ICRC_BYTES;
}

/* The slot holds the whole packet, `len` bytes of buf. */
static void slot_whole(struct tx_slot *s, size_t len)
{
	s->len = len;
	s->head_len = len;
	s->tail_len = 0;
	s->nref = 0;
}

/* The slot the next packet is built in (flushes a full queue first). */
static struct tx_slot *tx_next(void)
{
	if (ntx == BATCH)
		emu_link_flush();
	return &tx[ntx];
}

/* Puts the packet built in tx[ntx] on the wire's queue: from here on it
 * is sent, and the capture shows it as it leaves. */
static void tx_commit(unsigned port, uint32_t dst)
{
	struct tx_slot *s = &tx[ntx++];

	s->port = port;
	s->to = (struct sockaddr_in){
		.sin_family = AF_INET,
		.sin_port = htons(EMU_ROCE_UDP_PORT),
		.sin_addr.s_addr = htonl(dst),
	};
	emu_capture_packet(emu_port_addr(port), dst, s->buf, s->len);
}

/* A sealed packet the fault stage hands back, `copies` times. */
static void tx_push(unsigned port, uint32_t dst, const uint8_t *pkt, size_t len,
		    unsigned copies)
{
	while (copies--) {
		struct tx_slot *s = tx_next();

		/* a frame sent in order for want of room to hold it is
		 * already where the next frame is built */
		if (s->buf != pkt)
			memcpy(s->buf, pkt, len);
		slot_whole(s, len);
		tx_commit(port, dst);
	}
}

static const char *const fate_names[] = {
	[EMU_HOLD_NONE] = "duplicated",
	[EMU_HOLD_DELAY] = "delayed",
	[EMU_HOLD_REORDER] = "held for reordering",
};

/* With --debug: one line per fault, naming the packet. */
static void trace_fate(const struct emu_fate *f, unsigned port, uint32_t dst,
		       const uint8_t *pkt)
{
	struct emu_bth bth;

	if (!emu_cfg.debug || (!f->drop && f->copies == 1 && f->hold == EMU_HOLD_NONE))
		return;
	emu_bth_get(pkt, &bth);
	EMU_TRACE("wire: port %u to %u.%u.%u.%u: opcode 0x%02x QPN 0x%06x PSN 0x%06x %s%s%s",
		  port, dst >> 24, (dst >> 16) & 0xff, (dst >> 8) & 0xff, dst & 0xff,
		  bth.opcode, bth.dest_qpn, bth.psn,
		  f->drop ? "dropped" : f->copies > 1 ? "duplicated" : fate_names[f->hold],
		  f->copies > 1 && f->hold ? " and " : "",
		  f->copies > 1 && f->hold ? fate_names[f->hold] : "");
}

/* Applies the configured faults to the packet built in tx[ntx]. */
static void fault_stage(unsigned port, uint32_t dst)
{
	struct tx_slot *s = &tx[ntx];
	struct emu_fate f = s->buf[0] == EMU_OP_DATAGRAM_CREDIT ? emu_faults_decide_link(port) :
							    emu_faults_decide(port);

	trace_fate(&f, port, dst, s->buf);
	if (f.drop)
		return;
	if (f.hold != EMU_HOLD_NONE) {
		emu_faults_hold(&f, port, dst, s->buf, s->len, emu_link_now_ns(), tx_push);
		return;
	}
	tx_commit(port, dst);
	if (f.copies > 1)
		tx_push(port, dst, tx[ntx - 1].buf, tx[ntx - 1].len, f.copies - 1);
	emu_faults_release_after(port, dst, tx_push);
}

int emu_link_queue(unsigned port, uint32_t dst, const uint8_t *hdr, size_t hdr_len,
		   const struct iovec *iov, int iovcnt)
{
	struct tx_slot *s;
	size_t n = hdr_len, pay = 0;

	for (int i = 0; i < iovcnt; i++)
		pay += iov[i].iov_len;
	if (pay > MAX_PAYLOAD || hdr_len > EMU_ROCE_HDR_MAX)
		return EMSGSIZE;
	s = tx_next();
	memcpy(s->buf, hdr, hdr_len);
	for (int i = 0; i < iovcnt; i++) {
		memcpy(s->buf + n, iov[i].iov_base, iov[i].iov_len);
		n += iov[i].iov_len;
	}
	while (pay & 3) {
		s->buf[n++] = 0;
		pay++;
	}
	slot_whole(s, seal(s->buf, n, emu_port_addr(port), dst));
	if (emu_faults_on)
		fault_stage(port, dst);
	else
		tx_commit(port, dst);
	return 0;
}

/* emu_link_queue() reading the payload under a recovery point. */
static int queue_copy_guarded(unsigned port, uint32_t dst, const uint8_t *hdr,
			      size_t hdr_len, const struct iovec *iov, int iovcnt)
{
	struct emu_guard g;
	int err;

	if (!EMU_GUARD_ENTER(&g))
		return EFAULT;
	err = emu_link_queue(port, dst, hdr, hdr_len, iov, iovcnt);
	emu_guard_leave(&g);
	return err;
}

/* The ICRC over the payload, read under a recovery point. */
static int icrc_payload(uint32_t *crc, const struct iovec *iov, int iovcnt)
{
	struct emu_guard g;

	if (!EMU_GUARD_ENTER(&g))
		return EFAULT;
	for (int i = 0; i < iovcnt; i++)
		*crc = emu_icrc_update(*crc, iov[i].iov_base, iov[i].iov_len);
	emu_guard_leave(&g);
	return 0;
}

int emu_link_queue_ref(unsigned port, uint32_t dst, const uint8_t *hdr, size_t hdr_len,
		       const struct iovec *iov, int iovcnt)
{
	struct tx_slot *s;
	size_t pay = 0, pad;
	uint32_t crc;

	/* the faults and the capture work on whole packets */
	if (emu_faults_on || emu_capture_active() || iovcnt > EMU_LINK_REF_IOV)
		return queue_copy_guarded(port, dst, hdr, hdr_len, iov, iovcnt);
	for (int i = 0; i < iovcnt; i++)
		pay += iov[i].iov_len;
	if (pay > MAX_PAYLOAD || hdr_len > EMU_ROCE_HDR_MAX)
		return EMSGSIZE;
	pad = (4 - (pay & 3)) & 3;
	s = tx_next();
	memcpy(s->buf, hdr, hdr_len);
	crc = icrc_start(s->buf, hdr_len, hdr_len + pay + pad, emu_port_addr(port), dst);
	if (icrc_payload(&crc, iov, iovcnt))
		return EFAULT;
	memset(s->buf + hdr_len, 0, pad);
	crc = emu_icrc_update(crc, s->buf + hdr_len, pad);
	emu_icrc_final(crc, s->buf + hdr_len + pad);
	s->head_len = hdr_len;
	s->tail_len = pad + EMU_ICRC_BYTES;
	s->len = hdr_len + pay + s->tail_len;
	s->nref = (unsigned)iovcnt;
	memcpy(s->ref, iov, (size_t)iovcnt * sizeof(*iov));
	tx_commit(port, dst);
	return 0;
}

int emu_link_release_held(uint64_t now_ns)
{
	int n = (int)emu_faults_release_due(now_ns, tx_push);

	if (n)
		emu_link_flush();
	return n;
}

uint64_t emu_link_next_held(void)
{
	return emu_faults_next_due();
}

/*
 * How many packets from tx[i] (of tx[i, end)) go as one datagram that the
 * kernel cuts back into them (UDP_SEGMENT): consecutive packets to the
 * same peer, all as long as the first but the last, which may be shorter.
 * On the wire, and to the peer's socket, each is its own datagram again.
 */
static unsigned gso_run(unsigned i, unsigned end)
{
	size_t seg = tx[i].len, total = seg;
	unsigned k = 1;

	if (!gso_ok)
		return 1;
	while (i + k < end && k < GSO_MAX_SEGS && tx[i + k].len <= seg &&
	       tx[i + k].to.sin_addr.s_addr == tx[i].to.sin_addr.s_addr &&
	       total + tx[i + k].len <= GSO_MAX_BYTES) {
		total += tx[i + k].len;
		if (tx[i + k++].len < seg)
			break;
	}
	return k;
}

/* The kernel cannot segment on this socket or route (no UDP_SEGMENT, a
 * device without checksum offload): send packet by packet. */
static bool gso_refused(int err)
{
	return err == EIO || err == EINVAL || err == EOPNOTSUPP || err == ENOPROTOOPT ||
	       err == EMSGSIZE;
}

/* Packets in messages [from, from + count) of a batch of nmsg messages
 * over n packets, pkt0[i] the first packet of message i. */
static unsigned packets_in(const unsigned *pkt0, unsigned from, unsigned count,
			   unsigned nmsg, unsigned n)
{
	unsigned end = from + count;

	return (end < nmsg ? pkt0[end] : n) - pkt0[from];
}

/* Of the `count` packets from tx[at], the datagram credits. */
static unsigned credits_in(unsigned at, unsigned count)
{
	unsigned credits = 0;

	for (unsigned i = at; i < at + count; i++)
		credits += tx[i].buf[0] == EMU_OP_DATAGRAM_CREDIT;
	return credits;
}

/* `count` packets from tx[at] were handed to the kernel (sent) or
 * refused by it. */
static void count_sent(struct link_port *lp, unsigned at, unsigned count, bool sent)
{
	unsigned credits = credits_in(at, count);

	add(sent ? &lp->tx_packets : &lp->tx_lost, count - credits);
	add(sent ? &lp->tx_credits : &lp->tx_credits_lost, credits);
}

/* The iovecs of packet s (at most EMU_LINK_REF_IOV + 2) into v; returns
 * how many. */
static unsigned packet_iov(struct tx_slot *s, struct iovec *v)
{
	unsigned n = 0;

	v[n++] = (struct iovec){ s->buf, s->head_len };
	for (unsigned i = 0; i < s->nref; i++)
		v[n++] = s->ref[i];
	if (s->tail_len)
		v[n++] = (struct iovec){ s->buf + s->head_len, s->tail_len };
	return n;
}

/* Sends tx[first, first + n), all from one port. */
static void send_run(unsigned first, unsigned n)
{
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH * (EMU_LINK_REF_IOV + 2)];
	/* control messages are aligned as cmsghdr is: to size_t */
	struct {
		_Alignas(size_t) char buf[CMSG_SPACE(sizeof(uint16_t))];
	} ctl[BATCH];
	unsigned pkt0[BATCH];	/* first packet of each message */
	unsigned npkt[BATCH];	/* and how many it holds */
	int fd = emu_port_socket(tx[first].port);
	struct link_port *lp = &link_ports[tx[first].port - 1];
	unsigned nmsg = 0, done = 0, nv = 0;

	for (unsigned i = 0; i < n; nmsg++) {
		unsigned k = gso_run(first + i, first + n), v0 = nv;

		pkt0[nmsg] = i;
		npkt[nmsg] = k;
		for (unsigned j = 0; j < k; j++)
			nv += packet_iov(&tx[first + i + j], v + nv);
		m[nmsg] = (struct mmsghdr){ .msg_hdr = {
			.msg_name = &tx[first + i].to,
			.msg_namelen = sizeof(tx[first + i].to),
			.msg_iov = v + v0,
			.msg_iovlen = nv - v0,
		} };
		if (k > 1) {
			struct cmsghdr *c = (struct cmsghdr *)ctl[nmsg].buf;
			uint16_t seg = (uint16_t)tx[first + i].len;

			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(seg));
			memcpy(CMSG_DATA(c), &seg, sizeof(seg));
			m[nmsg].msg_hdr.msg_control = ctl[nmsg].buf;
			m[nmsg].msg_hdr.msg_controllen = sizeof(ctl[nmsg].buf);
		}
		i += k;
	}
	while (done < nmsg) {
		int r = sendmmsg(fd, m + done, nmsg - done, 0);

		if (r > 0) {
			count_sent(lp, first + pkt0[done],
				   packets_in(pkt0, done, (unsigned)r, nmsg, n), true);
			done += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && npkt[done] > 1 && gso_refused(errno)) {
			gso_ok = false;
			send_run(first + pkt0[done], n - pkt0[done]);
			return;
		}
		/* ECONNREFUSED (a peer gone), EAGAIN (buffer full),
		 * EFAULT (memory a packet refers to was unmapped since it
		 * was queued): the packets are lost on the wire, counted;
		 * skip them */
		count_sent(lp, first + pkt0[done], npkt[done], false);
		done++;
	}
}

int emu_link_flush(void)
{
	unsigned first = 0;
	int sent = 0;

	while (first < ntx) {
		unsigned n = 1;

		while (first + n < ntx && tx[first + n].port == tx[first].port)
			n++;
		send_run(first, n);
		sent += (int)n;
		first += n;
	}
	ntx = 0;
	return sent;
}

static bool icrc_ok(const uint8_t *pkt, size_t len, uint32_t src, uint32_t dst)
{
	uint8_t ipudp[28], icrc[4];
	uint32_t crc;

	emu_ipv4_udp_header(ipudp, src, dst, EMU_ROCE_UDP_PORT, EMU_ROCE_UDP_PORT,
			    (uint16_t)(8 + len));
	crc = emu_icrc_begin(ipudp, pkt);
	crc = emu_icrc_update(crc, pkt + EMU_BTH_BYTES, len - EMU_BTH_BYTES - 4);
	emu_icrc_final(crc, icrc);
	return !memcmp(icrc, pkt + len - 4, 4);
}

/*
 * A received message's control data: returns the segment size of a
 * datagram that UDP receive offload coalesced from several (UDP_GRO), or
 * 0; adds what the socket's drop count (SO_RXQ_OVFL) grew by since the
 * last message to the port's overflow count.
 */
static size_t rx_control(struct link_port *lp, struct msghdr *h)
{
	size_t seg = 0;

	if (h->msg_flags & MSG_CTRUNC)
		EMU_TRACE("wire: control data of a received datagram truncated");
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			int v;

			memcpy(&v, CMSG_DATA(c), sizeof(v));
			seg = v > 0 ? (size_t)v : 0;
		} else {
			uint32_t grown = emu_wire_udp_drops_grown(c, &lp->ovfl_seen);

			if (grown)
				add(&lp->rx_overflow, grown);
		}
	}
	return seg;
}

/* One packet of a datagram: checked, captured, handed out. */
static int take_packet(unsigned port, uint32_t src, uint8_t *p, size_t len,
		       struct emu_rx *rx)
{
	struct link_port *lp = &link_ports[port - 1];

	if (len < EMU_BTH_BYTES + 4 || (len & 3)) {
		add(&lp->rx_bad, 1);
		return 0;
	}
	if (!icrc_ok(p, len, src, emu_port_addr(port))) {
		add(&lp->rx_bad, 1);
		add(&lp->rx_bad_icrc, 1);
		return 0;
	}
	add(p[0] == EMU_OP_DATAGRAM_CREDIT ? &lp->rx_credits : &lp->rx_packets, 1);
	emu_capture_packet(src, emu_port_addr(port), p, len);
	*rx = (struct emu_rx){ src, port, p, len - 4 };
	return 1;
}

int emu_link_recv(unsigned port, struct emu_rx *rx, int max, bool *more)
{
	struct mmsghdr m[RX_MSGS];
	struct iovec v[RX_MSGS];
	struct sockaddr_in from[RX_MSGS];
	/* room for both control messages: UDP_GRO and SO_RXQ_OVFL */
	struct {
		_Alignas(size_t) char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(uint32_t))];
	} ctl[RX_MSGS];
	int fd = emu_port_socket(port), r, n = 0;
	struct link_port *lp;
	/* a coalesced datagram holds at most GSO_MAX_SEGS packets */
	unsigned vlen = (unsigned)max / GSO_MAX_SEGS;

	*more = false;
	if (fd < 0 || !vlen)
		return 0;
	lp = &link_ports[port - 1];
	if (vlen > RX_MSGS)
		vlen = RX_MSGS;
	for (unsigned i = 0; i < vlen; i++) {
		emu_mmsg_entry(&m[i], &v[i], rx_buf[i], sizeof(rx_buf[i]), &from[i]);
		m[i].msg_hdr.msg_control = ctl[i].buf;
		m[i].msg_hdr.msg_controllen = sizeof(ctl[i].buf);
	}
	r = recvmmsg(fd, m, vlen, MSG_DONTWAIT, NULL);
	*more = r == (int)vlen;
	for (int i = 0; i < r; i++) {
		size_t len = m[i].msg_len, seg = rx_control(lp, &m[i].msg_hdr);
		uint32_t src = ntohl(from[i].sin_addr.s_addr);

		if (!len || (m[i].msg_hdr.msg_flags & MSG_TRUNC)) {
			add(&lp->rx_bad, 1);
			continue;
		}
		/* RoCEv2 adapters send from UDP 4791 only (the port filter
		 * keeps the rest out when on): anything else is a stranger's,
		 * refused before its ICRC, which covers the source port */
		if (ntohs(from[i].sin_port) != EMU_ROCE_UDP_PORT) {
			add(&lp->rx_refused, 1);
			continue;
		}
		if (!seg || seg > len)
			seg = len;
		for (size_t off = 0; off < len; off += seg) {
			if (n == max) {
				/* more packets in one datagram than UDP
				 * receive offload coalesces: never seen, but
				 * counted rather than written past rx */
				add(&lp->rx_bad, 1);
				continue;
			}
			n += take_packet(port, src, rx_buf[i] + off,
					 len - off < seg ? len - off : seg, rx + n);
		}
	}
	return n;
}

/*
 * The socket's drop count as the kernel holds it now (SO_MEMINFO): also
 * the drops no datagram read since has reported (SO_RXQ_OVFL comes with
 * the next one), such as a flood the filter refused on a port that then
 * received nothing.  false when the kernel does not say.
 */
static bool kernel_drops(unsigned port, uint64_t *out)
{
	uint32_t mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);
	int fd = emu_port_socket(port);

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len <= SK_MEMINFO_DROPS * sizeof(mem[0]))
		return false;
	*out = mem[SK_MEMINFO_DROPS];
	return true;
}

void emu_link_counters(unsigned port, struct emu_link_counters *out)
{
	const struct link_port *lp = &link_ports[port - 1];
	uint64_t drops;

	out->tx_packets = atomic_load(&lp->tx_packets);
	out->tx_lost = atomic_load(&lp->tx_lost);
	out->rx_packets = atomic_load(&lp->rx_packets);
	out->rx_overflow = atomic_load(&lp->rx_overflow);
	out->rx_bad = atomic_load(&lp->rx_bad);
	out->rx_bad_icrc = atomic_load(&lp->rx_bad_icrc);
	out->rx_refused = atomic_load(&lp->rx_refused);
	out->tx_credits = atomic_load(&lp->tx_credits);
	out->tx_credits_lost = atomic_load(&lp->tx_credits_lost);
	out->rx_credits = atomic_load(&lp->rx_credits);
	if (kernel_drops(port, &drops) && drops > out->rx_overflow)
		out->rx_overflow = drops;
}

void emu_link_report(unsigned port, uint64_t ud_no_wqe)
{
	struct emu_link_counters c;

	emu_link_counters(port, &c);
	if (!c.tx_packets && !c.rx_packets && !c.tx_lost && !c.rx_overflow && !c.rx_bad &&
	    !c.rx_refused && !c.tx_credits && !c.rx_credits && !c.tx_credits_lost)
		return;
	if (!c.tx_lost && !c.rx_overflow && !c.rx_bad && !c.rx_refused && !ud_no_wqe &&
	    !c.tx_credits_lost && !emu_cfg.debug)
		return;
	fprintf(stderr,
		"mlx4emu: port %u RoCEv2 over the wire: %" PRIu64 " packets sent, %" PRIu64
		" received; lost: %" PRIu64 " on send, %" PRIu64
		" receive buffer overflow or filtered, %" PRIu64 " bad ICRC or framing; %"
		PRIu64 " refused (no QP takes them from that sender); %" PRIu64
		" UD without a receive WQE",
		port, c.tx_packets, c.rx_packets, c.tx_lost, c.rx_overflow, c.rx_bad,
		c.rx_refused, ud_no_wqe);
	if (c.tx_credits || c.rx_credits || c.tx_credits_lost)
		fprintf(stderr, "; datagram credit packets: %" PRIu64 " sent, %" PRIu64
			" received, %" PRIu64 " lost on send", c.tx_credits, c.rx_credits,
			c.tx_credits_lost);
	fputc('\n', stderr);
}

void emu_link_count_discarded(unsigned port, unsigned packets)
{
	if (port >= 1 && port <= 2)
		add(&link_ports[port - 1].tx_lost, packets);
}

void emu_link_count_refused(unsigned port)
{
	if (port >= 1 && port <= 2)
		add(&link_ports[port - 1].rx_refused, 1);
}
