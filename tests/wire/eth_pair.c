// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * eth_pair: raw Ethernet frames from a raw packet QP in one process to a
 * raw packet QP in another, over the wire between the two adapters.
 *
 *   eth_pair -p PORT [-n FRAMES] [-m unicast|broadcast|multicast] [-z]        (receiver)
 *   eth_pair -p PORT [-n FRAMES] [-m unicast|broadcast|multicast] [-z] HOST   (sender)
 *
 * The receiver steers its port MAC, the broadcast MAC and 01:00:5e:00:00:fb
 * to its QP (flow rules) and tells the sender its MAC over TCP.  The
 * sender sends FRAMES frames, in windows of WINDOW, to that MAC (unicast)
 * or to the broadcast or multicast MAC, ether type 0x88b5 (IEEE local
 * experimental), each with a 4-byte big-endian sequence number and a
 * pattern of that number, 60 to 1514 bytes long; after each window it
 * waits until the receiver has them all (so no socket buffer overflows).
 * The receiver checks every frame byte by byte (destination, source MAC,
 * type, length, payload) and that each arrives once, in order; both
 * sides then check the device's counters: FRAMES sent over the wire and
 * received, none lost.  With -z the frames must reach nobody (the two
 * adapters share no wire segment): the receiver gets none, the sender's
 * device sends none over the wire.  Exit 0 when all holds, 1 otherwise.
 * Every wait is bounded (10 s per window).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"

#include "exchange.h"
#include "peer_io.h"
#include "peer_side.h"
#include "verbs_env.h"

#define PROG "eth_pair"

#define WINDOW 64
#define SLOT 2048
#define ETHER_TYPE 0x88b5
/* -z: the sender sends this many windows */
#define NONE_WINDOWS 4

static const uint8_t BCAST[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t MCAST[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb };

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct peer_qp q;	/* buf: WINDOW slots to send from, or receive into */
	uint8_t mac[6];
};


static size_t frame_len(uint32_t seq)
{
	return 60 + (seq * 97u) % (1514 - 60 + 1);
}

static uint8_t pattern(uint32_t seq, size_t i)
{
	return (uint8_t)(seq * 131u + i * 7u);
}

static void build(uint8_t *f, const uint8_t dst[6], const uint8_t src[6], uint32_t seq)
{
	size_t len = frame_len(seq);

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = ETHER_TYPE >> 8;
	f[13] = ETHER_TYPE & 0xff;
	f[14] = (uint8_t)(seq >> 24);
	f[15] = (uint8_t)(seq >> 16);
	f[16] = (uint8_t)(seq >> 8);
	f[17] = (uint8_t)seq;
	for (size_t i = 18; i < len; i++)
		f[i] = pattern(seq, i);
}

static int to_rts(struct ibv_qp *qp)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	if (vx_qp_to_rts(qp, &a)) {
		fprintf(stderr, "%s: the raw packet QP did not reach RTS\n", PROG);
		return -1;
	}
	return 0;
}

static int open_side(struct side *s)
{
	static const struct peer_qp_spec raw = {
		.attr = {
			.qp_type = IBV_QPT_RAW_PACKET,
			.cap = { .max_send_wr = WINDOW, .max_recv_wr = WINDOW,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		},
		.cqe = 2 * WINDOW,
		.buf_bytes = WINDOW * SLOT,
		.access = IBV_ACCESS_LOCAL_WRITE,
	};
	struct ibv_port_attr pa;

	s->ctx = peer_open_device(PROG, &pa);
	if (!s->ctx)
		return -1;
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
		fprintf(stderr, "eth_pair: port 1 is not an Ethernet port\n");
		return -1;
	}
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd)
		return peer_fail(PROG, "ibv_alloc_pd");
	if (peer_qp_open(PROG, s->ctx, s->pd, &raw, &s->q))
		return -1;
	return to_rts(s->q.qp) || vx_port_mac(s->ctx, 1, s->mac) != 0;
}

static void close_side(struct side *s)
{
	peer_qp_close(PROG, &s->q);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ctx)
		ibv_close_device(s->ctx);
}

static int post_recv(struct side *s, unsigned slot)
{
	struct ibv_sge sge = { (uintptr_t)(s->q.buf + slot * SLOT), SLOT, s->q.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(s->q.qp, &wr, &bad) ? peer_fail(PROG, "ibv_post_recv") : 0;
}

static struct ibv_flow *steer(struct side *s, const uint8_t mac[6])
{
	struct ibv_flow *f = vx_flow_dst_mac(s->q.qp, 1, mac);

	if (!f)
		peer_fail(PROG, "ibv_create_flow");
	return f;
}

/* The frame in slot matches sequence number seq from src to dst. */
static int check_frame(const uint8_t *f, uint32_t len, uint32_t seq, const uint8_t dst[6],
		       const uint8_t src[6])
{
	static uint8_t want[SLOT];

	build(want, dst, src, seq);
	if (len != frame_len(seq) || memcmp(f, want, len)) {
		uint32_t got = len >= 18 ? (uint32_t)f[14] << 24 | (uint32_t)f[15] << 16 |
					   (uint32_t)f[16] << 8 | f[17] : 0;

		fprintf(stderr, "eth_pair: frame %u: %u bytes (expected %zu), sequence %u, "
			"bytes differ\n", seq, len, frame_len(seq), got);
		return -1;
	}
	return 0;
}

static int check_counters(bool sender, unsigned n)
{
	struct mlx4emu_counters c;
	struct mlx4emu_ctl ctl;

	if (mlx4emu_ctl_load(&ctl)) {
		fprintf(stderr, "eth_pair: run under mlx4emu-run\n");
		return -1;
	}
	/* the engine counts a batch once its send returned, which may be
	 * after the peer got it and said so: the pass that sent ends first */
	if (ctl.wait_idle(5000) || ctl.get_counters(&c)) {
		fprintf(stderr, "eth_pair: the device did not become idle\n");
		return -1;
	}
	printf("eth_pair: device: %llu frames sent over the wire, %llu received, %llu lost, "
	       "%llu without a receive WQE\n", (unsigned long long)c.wire_frames_sent,
	       (unsigned long long)c.wire_frames_received,
	       (unsigned long long)c.wire_frames_lost, (unsigned long long)c.no_wqe_drops);
	if ((sender ? c.wire_frames_sent : c.wire_frames_received) != n ||
	    c.wire_frames_lost || c.no_wqe_drops) {
		fprintf(stderr, "eth_pair: the device's counters disagree\n");
		return -1;
	}
	return 0;
}

static bool none_expected;

static int receiver(struct side *s, int fd, unsigned n, const uint8_t dst_kind[6])
{
	uint8_t peer[6];
	const uint8_t *dst = dst_kind ? dst_kind : s->mac;
	uint32_t next = 0;

	if (none_expected)
		n = 0;
	for (unsigned i = 0; i < WINDOW; i++)
		if (post_recv(s, i))
			return -1;
	if (peer_write(PROG, fd, s->mac, 6) || peer_read(PROG, fd, peer, 6))
		return -1;
	while (next < n) {
		unsigned w = n - next < WINDOW ? n - next : WINDOW;
		uint8_t ack = 1;

		for (unsigned i = 0; i < w; i++, next++) {
			struct ibv_wc wc;

			if (peer_poll_one(PROG, s->q.cq, &wc) ||
			    check_frame(s->q.buf + wc.wr_id * SLOT, wc.byte_len, next, dst, peer) ||
			    post_recv(s, (unsigned)wc.wr_id))
				return -1;
		}
		if (peer_write(PROG, fd, &ack, 1))
			return -1;
	}
	/* a receiver expecting nothing still acknowledges the sender's
	 * windows, after a look at its CQ */
	while (none_expected && next < NONE_WINDOWS) {
		uint8_t ack = 1;

		usleep(20 * 1000);
		if (ibv_poll_cq(s->q.cq, 1, &(struct ibv_wc){ 0 }) != 0) {
			fprintf(stderr, "eth_pair: a frame reached a port off the segment\n");
			return -1;
		}
		if (peer_write(PROG, fd, &ack, 1))
			return -1;
		next++;
	}
	/* nothing more comes: no duplicate, no stray frame */
	usleep(200 * 1000);
	if (ibv_poll_cq(s->q.cq, 1, &(struct ibv_wc){ 0 }) != 0) {
		fprintf(stderr, "eth_pair: a frame beyond the %u sent\n", n);
		return -1;
	}
	printf("eth_pair: %u frames received in order, every byte as sent\n", none_expected ? 0 : n);
	return check_counters(false, n);
}

static int sender(struct side *s, int fd, unsigned n, const uint8_t dst_kind[6])
{
	uint8_t peer[6];
	const uint8_t *dst;
	uint32_t next = 0;

	if (peer_read(PROG, fd, peer, 6) || peer_write(PROG, fd, s->mac, 6))
		return -1;
	dst = dst_kind ? dst_kind : peer;
	if (none_expected)
		n = NONE_WINDOWS * WINDOW;
	while (next < n) {
		unsigned w = n - next < WINDOW ? n - next : WINDOW;
		uint8_t ack;

		for (unsigned i = 0; i < w; i++) {
			uint8_t *f = s->q.buf + i * SLOT;
			struct ibv_sge sge = { (uintptr_t)f, (uint32_t)frame_len(next + i),
					       s->q.mr->lkey };
			struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			build(f, dst, s->mac, next + i);
			if (ibv_post_send(s->q.qp, &wr, &bad))
				return peer_fail(PROG, "ibv_post_send");
		}
		for (unsigned i = 0; i < w; i++) {
			struct ibv_wc wc;

			if (peer_poll_one(PROG, s->q.cq, &wc))
				return -1;
		}
		next += w;
		if (peer_read(PROG, fd, &ack, 1))
			return -1;
	}
	printf("eth_pair: %u frames sent\n", n);
	return check_counters(true, none_expected ? 0 : n);
}

int main(int argc, char **argv)
{
	struct side s = { 0 };
	struct ibv_flow *rules[3] = { NULL, NULL, NULL };
	struct ex_exchange x = { .fd = -1 };
	const uint8_t *dst_kind = NULL;
	unsigned n = 1000;
	int port = 18515, c, rc = 1;

	while ((c = getopt(argc, argv, "p:n:m:z")) != -1) {
		if (c == 'z')
			none_expected = true;
		else if (c == 'p')
			port = atoi(optarg);
		else if (c == 'n')
			n = (unsigned)strtoul(optarg, NULL, 0);
		else if (c == 'm' && !strcmp(optarg, "broadcast"))
			dst_kind = BCAST;
		else if (c == 'm' && !strcmp(optarg, "multicast"))
			dst_kind = MCAST;
		else if (c != 'm' || strcmp(optarg, "unicast")) {
			fprintf(stderr, "usage: eth_pair -p PORT [-n N] [-m unicast|broadcast|"
				"multicast] [-z] [HOST]\n");
			return 2;
		}
	}
	if (open_side(&s))
		goto out;
	if (optind == argc) {
		rules[0] = steer(&s, s.mac);
		rules[1] = steer(&s, BCAST);
		rules[2] = steer(&s, MCAST);
		if (!rules[0] || !rules[1] || !rules[2])
			goto out;
	}
	if (ex_exchange_open(&x, optind < argc ? argv[optind] : NULL, (uint16_t)port))
		goto out;
	rc = optind < argc ? sender(&s, x.fd, n, dst_kind) : receiver(&s, x.fd, n, dst_kind);
	rc = (ex_exchange_sync(&x, "end") || rc) ? 1 : 0;
out:
	ex_exchange_close(&x);
	for (int i = 0; i < 3; i++)
		if (rules[i])
			ibv_destroy_flow(rules[i]);
	close_side(&s);
	return rc;
}
