// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ud_mcast: UD multicast between two adapters (processes).
 *
 *   ud_mcast -p PORT [-n DATAGRAMS]         (receiver)
 *   ud_mcast -p PORT [-n DATAGRAMS] HOST    (sender)
 *
 * Both run on one wire segment (mlx4emu-run --wire-segment=N).  The
 * receiver has three UD QPs on port 1; two are attached to the group
 * MGID, the third is not.  The sender has two: its sending QP, attached
 * to the group but created with IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, and a
 * local member.  The sender sends DATAGRAMS datagrams to the group
 * (DestQP 0xffffff, Q_Key QKEY, 16 to 1016 bytes, each a 4-byte
 * big-endian sequence number and a pattern of it), in windows of WINDOW;
 * after each window it waits until the receiver has every copy.
 *
 * Checked, byte by byte: each attached QP of the receiver gets one copy
 * of each datagram, in order (GRH with DGID = MGID and SGID = the
 * sender's GID 0, source QPN, payload); the unattached one none; on the
 * sender's adapter the local member gets its copy and the blocked sender
 * none.  Exit 0 when all holds, 1 otherwise; every wait is bounded.
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

#include "exchange.h"
#include "peer_io.h"
#include "peer_side.h"
#include "verbs_env.h"

#define PROG "ud_mcast"

#define WINDOW 32
#define SLOT 2048
#define GRH 40
#define QKEY 0x11110000u
#define MLID 0xc001

static const union ibv_gid MGID = { .raw = {
	0xff, 0x12, 0x40, 0x1b, 0x80, 0x01, 0, 0, 0, 0, 0, 0, 0x4d, 0x43, 0x53, 0x54 } };

static struct ibv_context *ctx;
static struct ibv_pd *pd;

static size_t msg_len(uint32_t seq)
{
	return 16 + (seq * 37u) % 1001;
}

static void fill(uint8_t *p, uint32_t seq)
{
	p[0] = (uint8_t)(seq >> 24);
	p[1] = (uint8_t)(seq >> 16);
	p[2] = (uint8_t)(seq >> 8);
	p[3] = (uint8_t)seq;
	for (size_t i = 4; i < msg_len(seq); i++)
		p[i] = (uint8_t)(seq * 131u + i * 7u);
}

static int to_rts(struct ibv_qp *qp)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.qkey = QKEY;
	if (vx_qp_to_rts(qp, &a)) {
		fprintf(stderr, "%s: the UD QP did not reach RTS\n", PROG);
		return -1;
	}
	return 0;
}

static int post_recv(struct peer_qp *u, unsigned slot)
{
	struct ibv_sge sge = { (uintptr_t)(u->buf + slot * SLOT), SLOT, u->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(u->qp, &wr, &bad) ? peer_fail(PROG, "ibv_post_recv") : 0;
}

/* A UD QP with its own CQ and WINDOW receive slots, all posted. */
static int make_ud(struct peer_qp *u, uint32_t create_flags, bool attach)
{
	struct peer_qp_spec ud = {
		.attr = {
			.qp_type = IBV_QPT_UD,
			.cap = { .max_send_wr = WINDOW, .max_recv_wr = WINDOW,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.comp_mask = IBV_QP_INIT_ATTR_CREATE_FLAGS,
			.create_flags = create_flags,
		},
		.cqe = 2 * WINDOW,
		.buf_bytes = WINDOW * SLOT,
		.access = IBV_ACCESS_LOCAL_WRITE,
	};

	if (peer_qp_open(PROG, ctx, pd, &ud, u))
		return -1;
	if (to_rts(u->qp))
		return -1;
	for (unsigned i = 0; i < WINDOW; i++)
		if (post_recv(u, i))
			return -1;
	if (attach && ibv_attach_mcast(u->qp, &MGID, MLID))
		return peer_fail(PROG, "ibv_attach_mcast");
	return 0;
}

static void free_ud(struct peer_qp *u, bool attached)
{
	if (u->qp && attached)
		ibv_detach_mcast(u->qp, &MGID, MLID);
	peer_qp_close(PROG, u);
}

static int cq_empty(struct peer_qp *u, const char *who)
{
	struct ibv_wc wc;

	if (ibv_poll_cq(u->cq, 1, &wc) == 0)
		return 0;
	fprintf(stderr, "ud_mcast: %s got a datagram it must not get\n", who);
	return -1;
}

/* The copy of datagram seq on u: GRH (DGID = MGID, SGID = sgid), source
 * QPN, payload; its receive WQE posted again. */
static int take_copy(struct peer_qp *u, uint32_t seq, uint32_t src_qpn, const uint8_t sgid[16])
{
	static uint8_t want[SLOT];
	struct ibv_wc wc;
	const uint8_t *b;

	if (peer_poll_one(PROG, u->cq, &wc))
		return -1;
	b = u->buf + wc.wr_id * SLOT;
	fill(want, seq);
	if (wc.byte_len != GRH + msg_len(seq) || wc.src_qp != src_qpn ||
	    !(wc.wc_flags & IBV_WC_GRH) || memcmp(b + 24, MGID.raw, 16) ||
	    memcmp(b + 8, sgid, 16) || memcmp(b + GRH, want, msg_len(seq))) {
		fprintf(stderr, "ud_mcast: datagram %u: %u bytes (expected %zu), source QPN "
			"0x%x (0x%x), GRH or payload differ\n", seq, wc.byte_len,
			GRH + msg_len(seq), wc.src_qp, src_qpn);
		return -1;
	}
	return post_recv(u, (unsigned)wc.wr_id);
}

static int receiver(int fd, unsigned n)
{
	struct peer_qp r[3] = { { 0 } };
	uint8_t hello[20], sgid[16];
	uint32_t src_qpn;
	int rc = -1;

	if (make_ud(&r[0], 0, true) || make_ud(&r[1], 0, true) || make_ud(&r[2], 0, false))
		goto out;
	if (peer_write(PROG, fd, "ready", 5) || peer_read(PROG, fd, hello, sizeof(hello)))
		goto out;
	memcpy(&src_qpn, hello, 4);
	src_qpn = ntohl(src_qpn);
	memcpy(sgid, hello + 4, 16);
	for (uint32_t next = 0; next < n;) {
		unsigned w = n - next < WINDOW ? n - next : WINDOW;
		uint8_t ack = 1;

		for (unsigned i = 0; i < w; i++, next++)
			if (take_copy(&r[0], next, src_qpn, sgid) ||
			    take_copy(&r[1], next, src_qpn, sgid))
				goto out;
		if (peer_write(PROG, fd, &ack, 1))
			goto out;
	}
	usleep(200 * 1000);
	if (cq_empty(&r[0], "an attached QP (a second copy)") ||
	    cq_empty(&r[1], "an attached QP (a second copy)") ||
	    cq_empty(&r[2], "the QP that is not attached"))
		goto out;
	printf("ud_mcast: each of 2 attached QPs received the %u datagrams once, in order, "
	       "every byte as sent; the QP not attached none\n", n);
	rc = 0;
out:
	free_ud(&r[0], true);
	free_ud(&r[1], true);
	free_ud(&r[2], false);
	return rc;
}

static int sender(int fd, unsigned n)
{
	struct peer_qp s = { 0 }, local = { 0 };
	struct ibv_ah_attr aa;
	struct ibv_ah *ah = NULL;
	union ibv_gid gid;
	uint8_t hello[20], ready[5];
	uint32_t qpn;
	int rc = -1;

	if (make_ud(&s, IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, true) || make_ud(&local, 0, true))
		goto out;
	if (ibv_query_gid(ctx, 1, 0, &gid))
		goto out;
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dlid = MLID;
	aa.is_global = 1;
	aa.grh.dgid = MGID;
	aa.grh.sgid_index = 0;
	aa.grh.hop_limit = 1;
	ah = ibv_create_ah(pd, &aa);
	if (!ah) {
		peer_fail(PROG, "ibv_create_ah");
		goto out;
	}
	qpn = htonl(s.qp->qp_num);
	memcpy(hello, &qpn, 4);
	memcpy(hello + 4, gid.raw, 16);
	if (peer_read(PROG, fd, ready, sizeof(ready)) || peer_write(PROG, fd, hello, sizeof(hello)))
		goto out;
	for (uint32_t next = 0; next < n;) {
		unsigned w = n - next < WINDOW ? n - next : WINDOW;
		uint8_t ack;

		for (unsigned i = 0; i < w; i++) {
			uint8_t *b = s.buf + i * SLOT;
			struct ibv_sge sge = { (uintptr_t)b, (uint32_t)msg_len(next + i), s.mr->lkey };
			struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			fill(b, next + i);
			wr.wr.ud.ah = ah;
			wr.wr.ud.remote_qpn = 0xffffff;
			wr.wr.ud.remote_qkey = QKEY;
			if (ibv_post_send(s.qp, &wr, &bad)) {
				peer_fail(PROG, "ibv_post_send");
				goto out;
			}
		}
		for (unsigned i = 0; i < w; i++) {
			struct ibv_wc wc;

			if (peer_poll_one(PROG, s.cq, &wc))
				goto out;
		}
		/* the adapter's own member: a copy each; the blocked sender none */
		for (unsigned i = 0; i < w; i++)
			if (take_copy(&local, next + i, s.qp->qp_num, gid.raw))
				goto out;
		if (cq_empty(&s, "the sender (IBV_QP_CREATE_BLOCK_SELF_MCAST_LB)"))
			goto out;
		next += w;
		if (peer_read(PROG, fd, &ack, 1))
			goto out;
	}
	printf("ud_mcast: %u datagrams sent to the group; the local member got each, the "
	       "blocked sender none\n", n);
	rc = 0;
out:
	if (ah)
		ibv_destroy_ah(ah);
	free_ud(&s, true);
	free_ud(&local, true);
	return rc;
}

int main(int argc, char **argv)
{
	struct ex_exchange x = { .fd = -1 };
	unsigned n = 200;
	int port = 18515, c, rc = 1;

	while ((c = getopt(argc, argv, "p:n:")) != -1) {
		if (c == 'p') {
			port = atoi(optarg);
		} else if (c == 'n') {
			n = (unsigned)strtoul(optarg, NULL, 0);
		} else {
			fprintf(stderr, "usage: ud_mcast -p PORT [-n N] [HOST]\n");
			return 2;
		}
	}
	ctx = peer_open_device(PROG, NULL);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		peer_fail(PROG, "ibv_alloc_pd");
		goto out;
	}
	if (ex_exchange_open(&x, optind < argc ? argv[optind] : NULL, (uint16_t)port))
		goto out;
	rc = optind < argc ? sender(x.fd, n) : receiver(x.fd, n);
	rc = (ex_exchange_sync(&x, "end") || rc) ? 1 : 0;
out:
	ex_exchange_close(&x);
	if (pd)
		ibv_dealloc_pd(pd);
	if (ctx)
		ibv_close_device(ctx);
	return rc;
}
