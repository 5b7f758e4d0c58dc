// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair's side: one adapter, one RC QP, and the helpers the scenarios
 * post and poll with (see rc_pair.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rc_pair.h"
#include "verbs_env.h"

uint8_t qp_timeout = TIMEOUT, qp_retry_cnt = RETRY_CNT;

double retry_exc_s(void)
{
	return (qp_retry_cnt + 1) * 4.096e-6 * (double)(1u << qp_timeout);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void fill(uint8_t *p, unsigned len, unsigned seed)
{
	for (unsigned j = 0; j < len; j++)
		p[j] = pattern(j, seed);
}

int mismatch(const uint8_t *p, unsigned len, unsigned seed)
{
	for (unsigned j = 0; j < len; j++)
		if (p[j] != pattern(j, seed))
			return (int)j;
	return -1;
}

void open_side(struct side *s, int gidx)
{
	static const struct peer_qp_spec rc = {
		.attr = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 16,
				 .max_recv_sge = 2 },
		},
		.cqe = 256,
		.buf_bytes = BUF_BYTES,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
	};
	union ibv_gid gid;

	s->ctx = peer_open_device(PROG, &s->port);
	if (!s->ctx)
		DIE("open/query port");
	s->pd = ibv_alloc_pd(s->ctx);
	if (!s->pd || peer_qp_open(PROG, s->ctx, s->pd, &rc, &s->q))
		DIE("create objects");
	s->gidx = gidx;
	s->me.lid = s->port.lid;
	s->me.qpn = s->q.qp->qp_num;
	s->me.psn = (uint32_t)(getpid() * 2654435761u) & 0xffffff;
	s->me.rkey = s->q.mr->rkey;
	s->me.addr = (uintptr_t)s->q.buf;
	if (gidx >= 0 && !ibv_query_gid(s->ctx, 1, gidx, &gid))
		memcpy(s->me.gid, gid.raw, 16);
}

void connect_qp(struct side *s, uint8_t rnr_retry)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qpn = s->peer.qpn;
	a.rq_psn = s->peer.psn;
	a.sq_psn = s->me.psn;
	a.min_rnr_timer = 12;	/* 0.64 ms */
	a.timeout = qp_timeout;
	a.retry_cnt = qp_retry_cnt;
	a.rnr_retry = rnr_retry;
	vx_peer_ah(&a.ah, 1, (uint16_t)s->peer.lid, s->gidx, s->peer.gid);
	if (vx_qp_to_rts(s->q.qp, &a))
		DIE("connect the QP");
}

void close_side(struct side *s)
{
	CHECK(peer_qp_close(PROG, &s->q) == 0, "destroy QP, MR and CQ");
	CHECK(ibv_dealloc_pd(s->pd) == 0, "dealloc PD");
	CHECK(ibv_close_device(s->ctx) == 0, "close device");
}

int poll_n(struct side *s, struct ibv_wc *wc, int n, double secs)
{
	double end = now_s() + secs;
	int got = 0;

	while (got < n && now_s() < end) {
		int k = ibv_poll_cq(s->q.cq, n - got, wc + got);

		if (k < 0)
			DIE("poll CQ");
		got += k;
		if (!k)
			usleep(100);
	}
	return got;
}

void post_recv(struct side *s, uint32_t off, uint32_t len, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)s->q.buf + off, len, s->q.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(s->q.qp, &wr, &bad))
		DIE("post recv");
}

/* One send WR; remote = offset in the peer's buffer. */
void post(struct side *s, uint64_t id, enum ibv_wr_opcode op, uint32_t off,
		 uint32_t len, uint64_t remote, uint32_t rkey, uint64_t a0, uint64_t a1)
{
	struct ibv_sge sge = { (uintptr_t)s->q.buf + off, len, s->q.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = s->peer.addr + remote;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = a0;
		wr.wr.atomic.swap = a1;
	} else {
		wr.wr.rdma.remote_addr = s->peer.addr + remote;
		wr.wr.rdma.rkey = rkey;
		wr.imm_data = htonl((uint32_t)a0);
	}
	if (ibv_post_send(s->q.qp, &wr, &bad))
		DIE("post send");
}
