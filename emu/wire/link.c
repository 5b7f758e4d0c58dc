// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* UDP datagrams carrying RoCEv2 packets, sent and read in batches. */
#include "wire/link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "base/trace.h"
#include "wire/capture.h"
#include "wire/faults.h"
#include "wire/icrc.h"
#include "wire/mmsg.h"
#include "wire/identity.h"
#include "wire/roce.h"

#define BATCH 64
#define MAX_PAYLOAD 4096

struct tx_slot {
	uint8_t buf[EMU_LINK_MAX_PACKET];
	size_t len;
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

static uint8_t rx_buf[BATCH][EMU_LINK_MAX_PACKET + 64];
static atomic_uint_fast64_t rx_dropped;

/* Pads the packet, appends its ICRC; returns the length with it. */
static size_t seal(uint8_t *pkt, size_t len, uint32_t src, uint32_t dst)
{
	uint8_t ipudp[28];
	uint32_t crc;

	emu_ipv4_udp_header(ipudp, src, dst, EMU_ROCE_UDP_PORT, EMU_ROCE_UDP_PORT,
			    (uint16_t)(8 + len + EMU_ICRC_BYTES));
	crc = emu_icrc_begin(ipudp, pkt);
	crc = emu_icrc_update(crc, pkt + EMU_BTH_BYTES, len - EMU_BTH_BYTES);
	emu_icrc_final(crc, pkt + len);
	return len + EMU_ICRC_BYTES;
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
		s->len = len;
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
	struct emu_fate f = emu_faults_decide(port);
	struct tx_slot *s = &tx[ntx];

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
	s->len = seal(s->buf, n, emu_port_addr(port), dst);
	if (emu_faults_on)
		fault_stage(port, dst);
	else
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

/* Sends tx[first, first + n), all from one port. */
static int send_run(unsigned first, unsigned n)
{
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];
	int fd = emu_port_socket(tx[first].port);
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++)
		emu_mmsg_entry(&m[i], &v[i], tx[first + i].buf, tx[first + i].len,
			       &tx[first + i].to);
	while (done < n) {
		int r = sendmmsg(fd, m + done, n - done, 0);

		if (r > 0) {
			done += (unsigned)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		/* ECONNREFUSED (a peer gone), EAGAIN (buffer full): the
		 * packet is lost on the wire; skip it */
		done++;
	}
	return (int)n;
}

int emu_link_flush(void)
{
	unsigned first = 0;
	int sent = 0;

	while (first < ntx) {
		unsigned n = 1;

		while (first + n < ntx && tx[first + n].port == tx[first].port)
			n++;
		sent += send_run(first, n);
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

int emu_link_recv(unsigned port, struct emu_rx *rx, int max)
{
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];
	struct sockaddr_in from[BATCH];
	int fd = emu_port_socket(port), r, n = 0;

	if (fd < 0)
		return 0;
	if (max > BATCH)
		max = BATCH;
	for (int i = 0; i < max; i++)
		emu_mmsg_entry(&m[i], &v[i], rx_buf[i], sizeof(rx_buf[i]), &from[i]);
	r = recvmmsg(fd, m, (unsigned)max, MSG_DONTWAIT, NULL);
	for (int i = 0; i < r; i++) {
		size_t len = m[i].msg_len;
		uint32_t src = ntohl(from[i].sin_addr.s_addr);

		if ((m[i].msg_hdr.msg_flags & MSG_TRUNC) || len < EMU_BTH_BYTES + 4 ||
		    (len & 3) || ntohs(from[i].sin_port) != EMU_ROCE_UDP_PORT ||
		    !icrc_ok(rx_buf[i], len, src, emu_port_addr(port))) {
			atomic_fetch_add(&rx_dropped, 1);
			continue;
		}
		emu_capture_packet(src, emu_port_addr(port), rx_buf[i], len);
		rx[n++] = (struct emu_rx){ src, port, rx_buf[i], len - 4 };
	}
	return n;
}

uint64_t emu_link_rx_dropped(void)
{
	return atomic_load(&rx_dropped);
}
