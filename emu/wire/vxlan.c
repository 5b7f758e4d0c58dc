// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* VXLAN tunnels of the Ethernet ports (see vxlan.h). */
#include "wire/vxlan.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "base/config.h"
#include "base/libc.h"
#include "wire/capture.h"
#include "wire/identity.h"
#include "wire/mmsg.h"

#define BATCH EMU_VXLAN_BATCH
#define DATAGRAM_MAX (EMU_VXLAN_HDR_BYTES + EMU_VXLAN_MAX_FRAME)
#define VXLAN_FLAG_VNI 0x08

struct tunnel {
	int fd;
	uint32_t ovfl_seen;	/* the socket's SO_RXQ_OVFL count last read */
	atomic_uint_fast64_t tx_frames, rx_frames, tx_lost, rx_overflow, rx_bad;
};

struct tx_slot {
	uint8_t buf[DATAGRAM_MAX];
	size_t len;
	unsigned port;
	struct sockaddr_in to;
};

static struct tunnel tunnels[2] = { { .fd = -1 }, { .fd = -1 } };
static struct tx_slot tx[BATCH];
static unsigned ntx;
static uint8_t rx_buf[BATCH][DATAGRAM_MAX];

static void add(atomic_uint_fast64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

int emu_vxlan_open(void)
{
	for (unsigned p = 1; p <= emu_cfg.ports; p++) {
		uint32_t a = emu_port_addr(p);

		tunnels[p - 1].fd = emu_wire_udp_bind(a, EMU_VXLAN_UDP_PORT, EMU_UDP_COUNT_DROPS);
		if (tunnels[p - 1].fd < 0)
			fprintf(stderr,
				"mlx4emu: port %u: cannot bind UDP %u.%u.%u.%u:%u (%s): its "
				"frames and multicast datagrams stay in the adapter\n",
				p, a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff,
				EMU_VXLAN_UDP_PORT, strerror(errno));
	}
	return 0;
}

void emu_vxlan_close(void)
{
	for (unsigned i = 0; i < 2; i++)
		if (tunnels[i].fd >= 0) {
			emu_real_close(tunnels[i].fd);
			tunnels[i].fd = -1;
		}
}

int emu_vxlan_socket(unsigned port)
{
	return port >= 1 && port <= 2 ? tunnels[port - 1].fd : -1;
}

void emu_vxlan_queue(unsigned port, uint32_t dst, const uint8_t *frame, size_t len)
{
	struct tunnel *t = &tunnels[port - 1];
	struct tx_slot *s;
	uint32_t vni = emu_cfg.wire_segment;

	if (t->fd < 0 || len > EMU_VXLAN_MAX_FRAME) {
		add(&t->tx_lost, 1);
		return;
	}
	if (ntx == BATCH)
		emu_vxlan_flush();
	s = &tx[ntx++];
	memset(s->buf, 0, EMU_VXLAN_HDR_BYTES);
	s->buf[0] = VXLAN_FLAG_VNI;
	s->buf[4] = (uint8_t)(vni >> 16);
	s->buf[5] = (uint8_t)(vni >> 8);
	s->buf[6] = (uint8_t)vni;
	memcpy(s->buf + EMU_VXLAN_HDR_BYTES, frame, len);
	s->len = EMU_VXLAN_HDR_BYTES + len;
	s->port = port;
	s->to = (struct sockaddr_in){
		.sin_family = AF_INET,
		.sin_port = htons(EMU_VXLAN_UDP_PORT),
		.sin_addr.s_addr = htonl(dst),
	};
	emu_capture_udp(emu_port_addr(port), dst, EMU_VXLAN_UDP_PORT, s->buf, s->len);
}

/* Sends tx[first, first + n), all from one port; counts what the kernel
 * refused (EAGAIN: the socket buffer is full; a peer unreachable). */
static void send_run(unsigned first, unsigned n)
{
	struct tunnel *t = &tunnels[tx[first].port - 1];
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++)
		emu_mmsg_entry(&m[i], &v[i], tx[first + i].buf, tx[first + i].len,
			       &tx[first + i].to);
	while (done < n) {
		int r = sendmmsg(t->fd, m + done, n - done, 0);

		if (r > 0) {
			add(&t->tx_frames, (uint64_t)r);
			done += (unsigned)r;
		} else if (r < 0 && errno == EINTR) {
			continue;
		} else {
			add(&t->tx_lost, 1);
			done++;
		}
	}
}

int emu_vxlan_flush(void)
{
	unsigned first = 0;
	int queued = (int)ntx;

	while (first < ntx) {
		unsigned n = 1;

		while (first + n < ntx && tx[first + n].port == tx[first].port)
			n++;
		send_run(first, n);
		first += n;
	}
	ntx = 0;
	return queued;
}

/* The socket's drop count from a message's SO_RXQ_OVFL control data. */
static void note_overflow(struct tunnel *t, struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		uint32_t grown = emu_wire_udp_drops_grown(c, &t->ovfl_seen);

		if (grown)
			add(&t->rx_overflow, grown);
	}
}

/* A frame this port takes: only of its own segment (VNI 0 when it has
 * none), as a VXLAN endpoint keeps each segment apart; there, a frame for
 * its own MAC, and a flood only when it is on a segment. */
static bool frame_taken(unsigned port, const uint8_t *d, size_t len)
{
	uint32_t vni = (uint32_t)d[4] << 16 | (uint32_t)d[5] << 8 | d[6];
	uint8_t mac[6];

	if (len < EMU_VXLAN_HDR_BYTES + 14 || !(d[0] & VXLAN_FLAG_VNI) ||
	    vni != emu_cfg.wire_segment)
		return false;
	emu_port_mac(port, mac);
	if (!memcmp(d + EMU_VXLAN_HDR_BYTES, mac, 6))
		return true;
	return emu_cfg.wire_segment != 0;
}

int emu_vxlan_recv(unsigned port, struct emu_vxlan_rx *rx, int max)
{
	struct tunnel *t = &tunnels[port - 1];
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];
	struct sockaddr_in from[BATCH];
	/* control data for SO_RXQ_OVFL, aligned as a cmsghdr */
	uint64_t ctl[BATCH][(CMSG_SPACE(sizeof(uint32_t)) + 7) / 8];
	int r, n = 0;

	if (t->fd < 0)
		return 0;
	if (max > BATCH)
		max = BATCH;
	for (int i = 0; i < max; i++) {
		emu_mmsg_entry(&m[i], &v[i], rx_buf[i], sizeof(rx_buf[i]), &from[i]);
		m[i].msg_hdr.msg_control = ctl[i];
		m[i].msg_hdr.msg_controllen = sizeof(ctl[i]);
	}
	r = recvmmsg(t->fd, m, (unsigned)max, MSG_DONTWAIT, NULL);
	for (int i = 0; i < r; i++) {
		size_t len = m[i].msg_len;
		uint32_t src = ntohl(from[i].sin_addr.s_addr);

		note_overflow(t, &m[i].msg_hdr);
		if ((m[i].msg_hdr.msg_flags & MSG_TRUNC) ||
		    ntohs(from[i].sin_port) != EMU_VXLAN_UDP_PORT ||
		    !frame_taken(port, rx_buf[i], len)) {
			add(&t->rx_bad, 1);
			continue;
		}
		emu_capture_udp(src, emu_port_addr(port), EMU_VXLAN_UDP_PORT, rx_buf[i], len);
		add(&t->rx_frames, 1);
		rx[n++] = (struct emu_vxlan_rx){ src, rx_buf[i] + EMU_VXLAN_HDR_BYTES,
						 len - EMU_VXLAN_HDR_BYTES };
	}
	return n;
}

void emu_vxlan_counters(unsigned port, struct emu_vxlan_counters *out)
{
	const struct tunnel *t = &tunnels[port - 1];

	out->tx_frames = atomic_load(&t->tx_frames);
	out->rx_frames = atomic_load(&t->rx_frames);
	out->tx_lost = atomic_load(&t->tx_lost);
	out->rx_overflow = atomic_load(&t->rx_overflow);
	out->rx_bad = atomic_load(&t->rx_bad);
}

void emu_vxlan_report(unsigned port, uint64_t no_wqe)
{
	struct emu_vxlan_counters v;
	uint64_t lost;

	if (emu_cfg.link_layer[port - 1] != EMU_LL_ETH)
		return;
	emu_vxlan_counters(port, &v);
	lost = v.tx_lost + v.rx_overflow + v.rx_bad + no_wqe;
	if (!v.tx_frames && !v.rx_frames && !v.tx_lost && !v.rx_overflow)
		return;
	if (!lost && !emu_cfg.debug)
		return;
	fprintf(stderr,
		"mlx4emu: port %u Ethernet over the wire: %" PRIu64 " frames sent, %" PRIu64
		" received; lost: %" PRIu64 " on send, %" PRIu64 " receive buffer overflow, %"
		PRIu64 " not taken, %" PRIu64 " no receive WQE\n",
		port, v.tx_frames, v.rx_frames, v.tx_lost, v.rx_overflow, v.rx_bad, no_wqe);
}

void emu_vxlan_count_bad(unsigned port)
{
	add(&tunnels[port - 1].rx_bad, 1);
}
