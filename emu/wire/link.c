// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* UDP datagrams carrying RoCEv2 packets, sent and read in batches. */
#include "wire/link.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>

#include "wire/capture.h"
#include "wire/icrc.h"
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

int emu_link_queue(unsigned port, uint32_t dst, const uint8_t *hdr, size_t hdr_len,
		   const struct iovec *iov, int iovcnt)
{
	struct tx_slot *s;
	size_t n = hdr_len, pay = 0;

	for (int i = 0; i < iovcnt; i++)
		pay += iov[i].iov_len;
	if (pay > MAX_PAYLOAD || hdr_len > EMU_ROCE_HDR_MAX)
		return EMSGSIZE;
	if (ntx == BATCH)
		emu_link_flush();
	s = &tx[ntx++];
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
	s->port = port;
	s->to = (struct sockaddr_in){
		.sin_family = AF_INET,
		.sin_port = htons(EMU_ROCE_UDP_PORT),
		.sin_addr.s_addr = htonl(dst),
	};
	emu_capture_packet(emu_port_addr(port), dst, s->buf, s->len);
	return 0;
}

/* Sends tx[first, first + n), all from one port. */
static int send_run(unsigned first, unsigned n)
{
	struct mmsghdr m[BATCH];
	struct iovec v[BATCH];
	int fd = emu_port_socket(tx[first].port);
	unsigned done = 0;

	for (unsigned i = 0; i < n; i++) {
		v[i] = (struct iovec){ tx[first + i].buf, tx[first + i].len };
		m[i] = (struct mmsghdr){ .msg_hdr = {
			.msg_name = &tx[first + i].to,
			.msg_namelen = sizeof(tx[first + i].to),
			.msg_iov = &v[i],
			.msg_iovlen = 1,
		} };
	}
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
	for (int i = 0; i < max; i++) {
		v[i] = (struct iovec){ rx_buf[i], sizeof(rx_buf[i]) };
		m[i] = (struct mmsghdr){ .msg_hdr = {
			.msg_name = &from[i],
			.msg_namelen = sizeof(from[i]),
			.msg_iov = &v[i],
			.msg_iovlen = 1,
		} };
	}
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
