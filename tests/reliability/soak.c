// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * soak - drive every opcode of the direct data path over several QPs of one
 * device until --ops work requests have completed, with small rings so
 * that every ring wraps many times, and account for everything:
 *
 *  - every send work request completes exactly once, in posting order per
 *    QP (unsignaled ones with the next signaled completion), with its wr_id;
 *  - every receive completes exactly once, matched to the send, WRITE_IMM
 *    or UD datagram that consumed it, with the right length and immediate;
 *  - every payload is checked: received bytes, RDMA WRITE targets, RDMA
 *    READ results, atomic results against a model of the remote counter;
 *  - no completion carries an error status.
 *
 * Streams (sender QP -> receiver QP, loopback on port 1):
 *   rc_rq:  RC, receiver with its own RQ: SEND, SEND_IMM, WRITE,
 *           WRITE_IMM, READ, CAS, FAA
 *   rc_srq: RC, receiver on the SRQ: the same opcodes
 *   ud_rq:  UD, receiver with its own RQ: SEND, SEND_IMM
 *   ud_srq: UD, receiver on the SRQ: SEND, SEND_IMM
 * Posts alternate between the one-call posts and mlx4dv_sq_write_send_wr(),
 * gather and inline, 0..2 entries, zero-length entries, doorbell batches
 * and BlueFlame single posts.
 *
 * Usage: soak [--ops N] [--seed S] [--quiet]   (under mlx4emu-run)
 * Exit status 0 when every check held; the figures go to stdout.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "emu_verbs.h"
#include "../harness/wc_poll.h"

#define NSTREAMS 4
#define SQ_WR 8
#define RQ_WR 16
#define SRQ_WR 32
#define SLOT 512		/* bytes per buffer slot */
#define MAX_LEN 256
#define UD_GRH 40
#define FIFO 256		/* power of two, > any ring */

enum op { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_CAS,
	  OP_FAA, OP_KINDS };
static const char *const op_name[OP_KINDS] = {
	"send", "send_imm", "write", "write_imm", "read", "cas", "faa" };

struct send_rec {		/* a posted send work request */
	uint64_t wr_id;
	uint8_t op, signaled;
	uint32_t len, slot;
	uint64_t atomic_old;	/* expected result of CAS/FAA */
};

struct rx_rec {			/* an arrival the receiver expects */
	uint64_t op_id;
	uint8_t op;
	uint32_t len, slot;	/* WRITE_IMM: the sender's target slot */
	uint32_t imm;
};

struct stream {
	const char *name;
	int ud, on_srq;
	struct ibv_qp *sqp, *rqp;
	struct mlx4dv_sq_ring sq;
	struct mlx4dv_rq_ring rq;	/* receiver's RQ, unless on_srq */
	uint8_t *src, *dst, *rd_src, *recv;	/* slot areas */
	uint64_t *counter;		/* remote atomic target */
	uint64_t counter_model;
	struct send_rec sfifo[FIFO];
	uint32_t sf_head, sf_tail;
	struct rx_rec rfifo[FIFO];
	uint32_t rf_head, rf_tail;
	uint64_t rq_expect[FIFO];	/* wr_ids posted to the RQ, in order */
	uint32_t rqe_head, rqe_tail;
	uint32_t pending_since_db;
	uint32_t head_at_db;
	uint64_t ops[OP_KINDS];
};

static struct {
	struct ev_dev dev;
	struct ibv_cq *scq_v, *rcq_v;
	struct mlx4dv_cq_ring scq, rcq;
	struct ibv_srq *srq_v;
	struct mlx4dv_srq_ring srq;
	uint8_t *srq_bufs;
	uint64_t srq_out[1024];		/* wr_id outstanding per SRQ WQE, 0 = free */
	uint32_t srq_credit;		/* SRQ receives not yet claimed by a send */
	struct stream stream[NSTREAMS];
	struct mlx4dv_poll_qp pq[2 * NSTREAMS];
	struct mlx4dv_ud_av ud_dest;
	uint64_t next_op_id, next_recv_id;
	uint64_t sends_posted, sends_done, recvs_posted, recvs_done;
	uint64_t bf_posts, doorbells, unsignaled;
	uint32_t rng;
	int quiet;
} S;

static uint32_t rnd(void)
{
	S.rng ^= S.rng << 13;
	S.rng ^= S.rng >> 17;
	S.rng ^= S.rng << 5;
	return S.rng;
}

static uint8_t pattern(uint64_t op_id, uint32_t i)
{
	return (uint8_t)(op_id * 0x9e37u + i * 0x3bu + (op_id >> 11));
}

#define FAIL(...) do { fprintf(stderr, "soak: FAIL: " __VA_ARGS__); \
	fputc('\n', stderr); exit(1); } while (0)

static void check_pattern(const char *what, const uint8_t *p, uint64_t op_id,
			  uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pattern(op_id, i))
			FAIL("%s of op %" PRIu64 ": byte %u is %02x, expected %02x",
			     what, op_id, i, p[i], pattern(op_id, i));
}

/* ---- set-up ---- */

static void post_recv(struct stream *l);

static int setup_stream(struct stream *l, const char *name, int ud, int on_srq,
		      uint8_t **area)
{
	uint32_t qt = ud ? IBV_QPT_UD : IBV_QPT_RC;
	int ret;

	l->name = name;
	l->ud = ud;
	l->on_srq = on_srq;
	l->sqp = ev_qp_create(&S.dev, qt, S.scq_v, S.rcq_v, NULL, SQ_WR, 1, 2, 64);
	l->rqp = ev_qp_create(&S.dev, qt, S.scq_v, S.rcq_v,
			      on_srq ? S.srq_v : NULL, 1, RQ_WR, 2, 0);
	if (!l->sqp || !l->rqp)
		FAIL("%s: ibv_create_qp: %s", name, strerror(errno));
	if ((ret = ev_qp_to_rts(&S.dev, l->sqp, l->rqp->qp_num)) ||
	    (ret = ev_qp_to_rts(&S.dev, l->rqp, l->sqp->qp_num)))
		FAIL("%s: ibv_modify_qp: %s", name, strerror(ret));
	ret = mlx4dv_sq_ring_init(&l->sq, l->sqp,
				  MLX4DV_RING_INIT_WRID | MLX4DV_RING_INIT_BLUEFLAME);
	if (ret)
		FAIL("%s: mlx4dv_sq_ring_init: %s", name, strerror(ret));
	if (!on_srq && (ret = mlx4dv_rq_ring_init(&l->rq, l->rqp, MLX4DV_RING_INIT_WRID)))
		FAIL("%s: mlx4dv_rq_ring_init: %s", name, strerror(ret));
	if (l->sq.wqe_cnt > FIFO / 2 || (!on_srq && l->rq.wqe_cnt > FIFO / 2))
		FAIL("%s: rings larger than expected", name);
	l->src = *area;
	*area += (size_t)l->sq.wqe_cnt * SLOT;
	l->dst = *area;
	*area += (size_t)l->sq.wqe_cnt * SLOT;
	l->rd_src = *area;
	*area += (size_t)l->sq.wqe_cnt * SLOT;
	l->recv = *area;
	*area += (size_t)RQ_WR * 2 * SLOT;
	l->counter = (uint64_t *)(void *)*area;
	*area += 64;
	*l->counter = l->counter_model = 0x1000u * (uint64_t)(l - S.stream);
	for (uint32_t s = 0; s < l->sq.wqe_cnt; s++)
		for (uint32_t i = 0; i < SLOT; i++)
			l->rd_src[s * SLOT + i] = pattern(~(uint64_t)s, i);
	if (!on_srq)
		while (l->rq.head - l->rq.tail < l->rq.wqe_cnt)
			post_recv(l);
	return 0;
}

static void setup(void)
{
	struct ibv_srq_init_attr sa;
	uint8_t *area;
	int ret, i;

	if ((ret = ev_open(&S.dev, 8u << 20)))
		FAIL("device: %s", strerror(ret));
	S.scq_v = ibv_create_cq(S.dev.ctx, NSTREAMS * SQ_WR * 2, NULL, NULL, 0);
	S.rcq_v = ibv_create_cq(S.dev.ctx, 2 * RQ_WR + SRQ_WR + 8, NULL, NULL, 0);
	memset(&sa, 0, sizeof(sa));
	sa.attr.max_wr = SRQ_WR;
	sa.attr.max_sge = 2;
	S.srq_v = ibv_create_srq(S.dev.pd, &sa);
	if (!S.scq_v || !S.rcq_v || !S.srq_v)
		FAIL("ibv_create_cq/srq: %s", strerror(errno));
	if ((ret = mlx4dv_cq_ring_init(&S.scq, S.scq_v, 0)) ||
	    (ret = mlx4dv_cq_ring_init(&S.rcq, S.rcq_v, 0)))
		FAIL("mlx4dv_cq_ring_init: %s", strerror(ret));
	if ((ret = mlx4dv_srq_ring_init(&S.srq, S.srq_v, MLX4DV_RING_INIT_WRID)))
		FAIL("mlx4dv_srq_ring_init: %s", strerror(ret));
	if (S.srq.wqe_cnt > 1024)
		FAIL("SRQ larger than expected");
	if ((ret = ev_ud_dest(&S.dev, &S.ud_dest)))
		FAIL("mlx4dv_ud_av_init: %s", strerror(ret));
	area = S.dev.mem;
	S.srq_bufs = area;
	area += (size_t)S.srq.wqe_cnt * SLOT;
	setup_stream(&S.stream[0], "rc_rq", 0, 0, &area);
	setup_stream(&S.stream[1], "rc_srq", 0, 1, &area);
	setup_stream(&S.stream[2], "ud_rq", 1, 0, &area);
	setup_stream(&S.stream[3], "ud_srq", 1, 1, &area);
	if (area > S.dev.mem + S.dev.mem_len)
		FAIL("buffer area too small");
	while (S.srq.head != S.srq.tail)
		post_recv(&S.stream[1]);
	for (i = 0; i < NSTREAMS; i++) {
		struct stream *l = &S.stream[i];

		S.pq[2 * i].qpn = l->sqp->qp_num;
		S.pq[2 * i].sq = &l->sq;
		S.pq[2 * i + 1].qpn = l->rqp->qp_num;
		if (l->on_srq)
			S.pq[2 * i + 1].srq = &S.srq;
		else
			S.pq[2 * i + 1].rq = &l->rq;
	}
}

/* ---- receives ---- */

static void post_recv(struct stream *l)
{
	struct ibv_sge sg[2];
	uint64_t id = ++S.next_recv_id;
	uint32_t idx, split;
	uint8_t *buf;
	int ret;

	if (l->on_srq) {
		idx = S.srq.head;
		buf = S.srq_bufs + (size_t)idx * SLOT;
	} else {
		idx = l->rq.head & (l->rq.wqe_cnt - 1);
		buf = l->recv + (size_t)idx * SLOT;
	}
	/* two scatter entries, split at a random point */
	split = rnd() % (SLOT / 2);
	sg[0].addr = (uintptr_t)buf;
	sg[0].length = split;
	sg[0].lkey = S.dev.mr->lkey;
	sg[1].addr = (uintptr_t)buf + split;
	sg[1].length = SLOT - split;
	sg[1].lkey = S.dev.mr->lkey;
	memset(buf, 0xcc, SLOT);
	if (l->on_srq) {
		ret = mlx4dv_srq_post(&S.srq, id, sg, 2);
		if (ret)
			FAIL("srq post: %s", strerror(ret));
		if (S.srq_out[idx])
			FAIL("SRQ WQE %u handed out twice", idx);
		S.srq_out[idx] = id;
		S.srq_credit++;
	} else {
		ret = mlx4dv_rq_post(&l->rq, id, sg, 2);
		if (ret)
			FAIL("%s: rq post: %s", l->name, strerror(ret));
		l->rq_expect[l->rqe_head++ % FIFO] = id;
	}
	S.recvs_posted++;
}

static uint32_t *credit_of(struct stream *l, uint32_t *own)
{
	*own = l->rq.head - l->rq.tail - (l->rf_head - l->rf_tail);
	return l->on_srq ? &S.srq_credit : own;
}

static void on_recv(struct stream *l, const struct ibv_wc *wc)
{
	struct rx_rec *x;
	const uint8_t *buf;
	uint32_t idx;

	if (l->rf_tail == l->rf_head)
		FAIL("%s: receive completion %" PRIu64 " without a send", l->name,
		     wc->wr_id);
	x = &l->rfifo[l->rf_tail++ % FIFO];
	if (l->on_srq) {
		for (idx = 0; idx < S.srq.wqe_cnt; idx++)
			if (S.srq_out[idx] == wc->wr_id)
				break;
		if (idx == S.srq.wqe_cnt)
			FAIL("%s: SRQ completion with unknown wr_id %" PRIu64,
			     l->name, wc->wr_id);
		S.srq_out[idx] = 0;
		buf = S.srq_bufs + (size_t)idx * SLOT;
	} else {
		/* RQ completions come in posting order; the n-th post used
		 * slot n of the ring */
		uint64_t want = l->rq_expect[l->rqe_tail % FIFO];

		if (wc->wr_id != want)
			FAIL("%s: RQ completion wr_id %" PRIu64 ", expected %" PRIu64,
			     l->name, wc->wr_id, want);
		idx = l->rqe_tail++ & (l->rq.wqe_cnt - 1);
		buf = l->recv + (size_t)idx * SLOT;
	}
	if (wc->byte_len != x->len + (l->ud ? UD_GRH : 0)) {
		uint32_t k;

		/* say what arrived instead: a skip, a repeat or a stranger */
		for (k = l->rf_tail - 8; k != l->rf_head; k++) {
			const struct rx_rec *y = &l->rfifo[k % FIFO];

			fprintf(stderr, "soak: %s expected[%d]: op %" PRIu64 " %s len %u imm %#x\n",
				l->name, (int)(k - (l->rf_tail - 1)), y->op_id,
				op_name[y->op], y->len, y->imm);
		}
		fprintf(stderr, "soak: got wr_id %" PRIu64 " len %u opcode %d flags %#x imm %#x\n",
			wc->wr_id, wc->byte_len, wc->opcode, wc->wc_flags, wc->imm_data);
		FAIL("%s: op %" PRIu64 " received %u bytes, expected %u", l->name,
		     x->op_id, wc->byte_len, x->len);
	}
	if (x->op == OP_SEND_IMM || x->op == OP_WRITE_IMM) {
		if (!(wc->wc_flags & IBV_WC_WITH_IMM) || wc->imm_data != x->imm)
			FAIL("%s: op %" PRIu64 ": immediate lost", l->name, x->op_id);
	}
	if (x->op == OP_WRITE_IMM) {
		if (wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM)
			FAIL("%s: WRITE_IMM received as opcode %d", l->name, wc->opcode);
		check_pattern("write_imm target", l->dst + (size_t)x->slot * SLOT,
			      x->op_id, x->len);
	} else {
		if (wc->opcode != IBV_WC_RECV)
			FAIL("%s: SEND received as opcode %d", l->name, wc->opcode);
		check_pattern("received payload", buf + (l->ud ? UD_GRH : 0),
			      x->op_id, x->len);
	}
	S.recvs_done++;
	post_recv(l);
}

/* ---- send completions ---- */

static void retire(struct stream *l, struct send_rec *r)
{
	uint8_t *src = l->src + (size_t)r->slot * SLOT;

	switch (r->op) {
	case OP_WRITE:
		check_pattern("write target", l->dst + (size_t)r->slot * SLOT,
			      r->wr_id, r->len);
		break;
	case OP_READ:
		check_pattern("read result", src, ~(uint64_t)r->slot, r->len);
		break;
	case OP_CAS:
	case OP_FAA: {
		uint64_t got;

		memcpy(&got, src, 8);
		if (got != r->atomic_old)
			FAIL("%s: %s %" PRIu64 " returned %#" PRIx64 ", expected %#" PRIx64,
			     l->name, op_name[r->op], r->wr_id, got, r->atomic_old);
		break;
	}
	default:
		break;
	}
	S.sends_done++;
}

static void on_send(struct stream *l, const struct ibv_wc *wc)
{
	for (;;) {
		struct send_rec *r;

		if (l->sf_tail == l->sf_head)
			FAIL("%s: send completion %" PRIu64 " not outstanding",
			     l->name, wc->wr_id);
		r = &l->sfifo[l->sf_tail++ % FIFO];
		if (r->wr_id == wc->wr_id) {
			retire(l, r);
			return;
		}
		if (r->signaled)
			FAIL("%s: completion %" PRIu64 " skipped signaled %" PRIu64,
			     l->name, wc->wr_id, r->wr_id);
		retire(l, r);	/* unsignaled, completed with this one */
	}
}

static int poll_cq(struct mlx4dv_cq_ring *cq)
{
	struct ibv_wc wc[16];
	int n = wc_poll_count(cq, S.pq, 2 * NSTREAMS, 16, wc), i, k;

	if (n < 0)
		FAIL("mlx4dv_cq_poll_wc: %s", strerror(-n));
	for (i = 0; i < n; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			FAIL("completion %" PRIu64 " on QP %#x: %s (vendor %#x)",
			     wc[i].wr_id, wc[i].qp_num,
			     ibv_wc_status_str(wc[i].status), wc[i].vendor_err);
		for (k = 0; k < NSTREAMS; k++) {
			if (wc[i].qp_num == S.stream[k].sqp->qp_num) {
				on_send(&S.stream[k], &wc[i]);
				break;
			}
			if (wc[i].qp_num == S.stream[k].rqp->qp_num) {
				on_recv(&S.stream[k], &wc[i]);
				break;
			}
		}
		if (k == NSTREAMS)
			FAIL("completion for unknown QP %#x", wc[i].qp_num);
	}
	return n;
}

/* ---- posting ---- */

static void fill_payload(uint8_t *p, uint64_t op_id, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pattern(op_id, i);
}

static void ring(struct stream *l)
{
	if (!l->pending_since_db)
		return;
	if (l->pending_since_db == 1 && (rnd() & 1)) {
		if (mlx4dv_sq_ring_bf(&l->sq, l->head_at_db))
			S.bf_posts++;
		else
			S.doorbells++;
	} else {
		mlx4dv_sq_ring_doorbell(&l->sq);
		S.doorbells++;
	}
	l->pending_since_db = 0;
	l->head_at_db = l->sq.head;
}

/* Post one random work request on stream l; 0 when it had no room. */
static int post_one(struct stream *l)
{
	uint32_t own, *credit = credit_of(l, &own);
	uint32_t slot = l->sq.head & (l->sq.wqe_cnt - 1);
	uint8_t *src = l->src + (size_t)slot * SLOT;
	uint64_t id = ++S.next_op_id;
	struct send_rec r;
	struct ibv_sge sg[2];
	uint32_t len = rnd() % (MAX_LEN + 1), nsg, flags = 0, imm = rnd();
	uint64_t raddr = (uintptr_t)(l->dst + (size_t)slot * SLOT);
	uint32_t rkey = S.dev.mr->rkey, lkey = S.dev.mr->lkey;
	int op, ret, use_wr = rnd() & 1, needs_recv;

	if (rnd() % 8 == 0)
		len = 0;
	op = l->ud ? (int)(rnd() % 2) : (int)(rnd() % OP_KINDS);
	needs_recv = op == OP_SEND || op == OP_SEND_IMM || op == OP_WRITE_IMM;
	if (mlx4dv_sq_room(&l->sq) < 1 || (needs_recv && *credit == 0)) {
		S.next_op_id--;
		return 0;
	}
	if (op == OP_CAS || op == OP_FAA)
		len = 8;
	/* gather list over the slot: 0, 1 or 2 entries (a zero-length
	 * entry among them now and then) */
	nsg = len ? 1 + rnd() % 2 : rnd() % 2;
	sg[0].addr = (uintptr_t)src;
	sg[0].length = nsg == 2 ? rnd() % (len + 1) : len;
	sg[0].lkey = lkey;
	sg[1].addr = (uintptr_t)src + sg[0].length;
	sg[1].length = len - sg[0].length;
	sg[1].lkey = lkey;
	if (op == OP_READ || op == OP_CAS || op == OP_FAA) {
		memset(src, 0xdd, len);
		if (op == OP_READ)
			raddr = (uintptr_t)(l->rd_src + (size_t)slot * SLOT);
	} else {
		fill_payload(src, id, len);
	}
	if (op != OP_READ && op != OP_CAS && op != OP_FAA &&
	    len <= l->sq.max_inline && (rnd() & 1))
		flags |= IBV_SEND_INLINE;
	/* reads and atomics always ask for a completion; others mostly */
	if (op >= OP_READ || rnd() % 4 || mlx4dv_sq_room(&l->sq) <= 2)
		flags |= IBV_SEND_SIGNALED;

	memset(&r, 0, sizeof(r));
	r.wr_id = id;
	r.op = (uint8_t)op;
	r.signaled = (flags & IBV_SEND_SIGNALED) != 0;
	r.len = len;
	r.slot = slot;
	if (op == OP_CAS) {
		uint64_t cmp = (rnd() & 1) ? l->counter_model : l->counter_model + 1;
		uint64_t swap = ((uint64_t)rnd() << 32) | rnd();

		r.atomic_old = l->counter_model;
		if (cmp == l->counter_model)
			l->counter_model = swap;
		sg[0].length = 8;
		raddr = (uintptr_t)l->counter;
		ret = mlx4dv_sq_write_cas(&l->sq, id, rkey, raddr, cmp, swap, &sg[0], flags);
	} else if (op == OP_FAA) {
		uint64_t add = rnd();

		r.atomic_old = l->counter_model;
		l->counter_model += add;
		sg[0].length = 8;
		raddr = (uintptr_t)l->counter;
		ret = mlx4dv_sq_write_faa(&l->sq, id, rkey, raddr, add, &sg[0], flags);
	} else if (use_wr || l->ud) {
		struct ibv_send_wr wr;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = id;
		wr.sg_list = sg;
		wr.num_sge = (int)nsg;
		wr.send_flags = flags;
		wr.imm_data = imm;
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
		if (l->ud) {
			wr.wr.ud.remote_qpn = l->rqp->qp_num;
			wr.wr.ud.remote_qkey = EV_QKEY;
		}
		wr.opcode = op == OP_SEND ? IBV_WR_SEND : op == OP_SEND_IMM ?
			IBV_WR_SEND_WITH_IMM : op == OP_WRITE ? IBV_WR_RDMA_WRITE :
			op == OP_WRITE_IMM ? IBV_WR_RDMA_WRITE_WITH_IMM :
			IBV_WR_RDMA_READ;
		ret = mlx4dv_sq_write_send_wr(&l->sq, &wr, &S.ud_dest);
	} else {
		switch (op) {
		case OP_SEND:
			ret = mlx4dv_sq_write_send(&l->sq, id, sg, nsg, flags);
			break;
		case OP_SEND_IMM:
			ret = mlx4dv_sq_write_send_imm(&l->sq, id, sg, nsg, flags, imm);
			break;
		case OP_WRITE:
			ret = mlx4dv_sq_write_rdma_write(&l->sq, id, rkey, raddr, sg, nsg, flags);
			break;
		case OP_WRITE_IMM:
			ret = mlx4dv_sq_write_rdma_write_imm(&l->sq, id, rkey, raddr, sg, nsg,
						       flags, imm);
			break;
		default:
			ret = mlx4dv_sq_write_rdma_read(&l->sq, id, rkey, raddr, sg, nsg, flags);
			break;
		}
	}
	if (ret)
		FAIL("%s: post %s: %s", l->name, op_name[op], strerror(ret));

	if (!r.signaled)
		S.unsignaled++;
	l->sfifo[l->sf_head++ % FIFO] = r;
	if (needs_recv) {
		struct rx_rec *x = &l->rfifo[l->rf_head++ % FIFO];

		x->op_id = id;
		x->op = (uint8_t)op;
		x->len = len;
		x->slot = slot;
		x->imm = imm;
		if (l->on_srq)
			S.srq_credit--;
	}
	l->ops[op]++;
	l->pending_since_db++;
	S.sends_posted++;
	return 1;
}

/* At the end of the run: a stream whose last work request went unsignaled
 * gets a signaled zero-length RDMA WRITE (RC) or SEND without payload
 * (UD) so that the unsignaled ones complete too. */
static void close_stream(struct stream *l)
{
	struct send_rec r;
	uint32_t own, *credit = credit_of(l, &own);
	int ret;

	if (l->sf_head == l->sf_tail || l->sfifo[(l->sf_head - 1) % FIFO].signaled)
		return;
	if (mlx4dv_sq_room(&l->sq) < 1 || (l->ud && *credit == 0))
		return;		/* try again after polling */
	memset(&r, 0, sizeof(r));
	r.wr_id = ++S.next_op_id;
	r.signaled = 1;
	r.slot = l->sq.head & (l->sq.wqe_cnt - 1);
	if (l->ud) {
		struct rx_rec *x = &l->rfifo[l->rf_head++ % FIFO];

		r.op = OP_SEND;
		ret = mlx4dv_sq_write_ud_send(&l->sq, r.wr_id, &S.ud_dest, l->rqp->qp_num,
					     EV_QKEY, NULL, 0, IBV_SEND_SIGNALED);
		memset(x, 0, sizeof(*x));
		x->op_id = r.wr_id;
		x->op = OP_SEND;
		if (l->on_srq)
			S.srq_credit--;
	} else {
		r.op = OP_WRITE;
		ret = mlx4dv_sq_write_rdma_write(&l->sq, r.wr_id, S.dev.mr->rkey, (uintptr_t)(l->dst + (size_t)r.slot * SLOT),
			NULL,
			0, IBV_SEND_SIGNALED);
	}
	if (ret)
		FAIL("%s: closing post: %s", l->name, strerror(ret));
	l->sfifo[l->sf_head++ % FIFO] = r;
	l->ops[r.op]++;
	l->pending_since_db++;
	S.sends_posted++;
	ring(l);
}

/* ---- main loop ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int outstanding(void)
{
	int i;

	for (i = 0; i < NSTREAMS; i++)
		if (S.stream[i].sf_head != S.stream[i].sf_tail ||
		    S.stream[i].rf_head != S.stream[i].rf_tail)
			return 1;
	return 0;
}

static void report(uint64_t target, double secs)
{
	struct mlx4emu_ctl ctl;
	struct mlx4emu_counters c;
	uint64_t max_sq_head = 0;
	int i, k;

	printf("soak: %" PRIu64 " operations (target %" PRIu64 ") in %.1f s\n",
	       S.sends_done, target, secs);
	printf("  send WRs posted %" PRIu64 ", completed %" PRIu64
	       " (%" PRIu64 " unsignaled), receives matched %" PRIu64 "/%" PRIu64
	       " posted\n", S.sends_posted, S.sends_done, S.unsignaled,
	       S.recvs_done, S.recvs_posted);
	printf("  doorbells %" PRIu64 ", BlueFlame posts %" PRIu64 "\n",
	       S.doorbells, S.bf_posts);
	for (i = 0; i < NSTREAMS; i++) {
		struct stream *l = &S.stream[i];

		printf("  %-7s SQ %3u WQEBBs: %9u WQEBBs, %7u wraps", l->name,
		       l->sq.wqe_cnt, l->sq.head, l->sq.head / l->sq.wqe_cnt);
		if (!l->on_srq)
			printf("; RQ %2u: %7u wraps", l->rq.wqe_cnt,
			       l->rq.head / l->rq.wqe_cnt);
		printf(";");
		for (k = 0; k < OP_KINDS; k++)
			if (l->ops[k])
				printf(" %s %" PRIu64, op_name[k], l->ops[k]);
		printf("\n");
		if (l->sq.head > max_sq_head)
			max_sq_head = l->sq.head;
	}
	printf("  SRQ %u WQEs: %u posts, %u wraps of the 16-bit record %s\n",
	       S.srq.wqe_cnt, S.srq.counter, S.srq.counter / S.srq.wqe_cnt,
	       S.srq.counter > 0xffff ? "(wrapped)" : "(not wrapped)");
	printf("  send CQ %u CQEs: cons_index %u, %u wraps; receive CQ %u CQEs: "
	       "cons_index %u, %u wraps\n", S.scq.cqe_cnt, S.scq.cons_index,
	       S.scq.cons_index / S.scq.cqe_cnt, S.rcq.cqe_cnt,
	       S.rcq.cons_index, S.rcq.cons_index / S.rcq.cqe_cnt);
	printf("  16-bit WQE counter %s (largest SQ count %" PRIu64 "); 24-bit CQ "
	       "index %s\n", max_sq_head > 0xffff ? "wrapped" : "not wrapped",
	       max_sq_head, (S.scq.cons_index > 0xffffff ||
			      S.rcq.cons_index > 0xffffff) ? "wrapped" : "not wrapped");
	if (mlx4emu_ctl_load(&ctl) == 0 && ctl.get_counters(&c) == 0)
		printf("  device: %" PRIu64 " WQEs executed, %" PRIu64 " CQEs written, %"
		       PRIu64 " error CQEs, %" PRIu64 " BlueFlame writes seen\n",
		       c.wqes_executed, c.cqes_written, c.error_cqes, c.bf_posts);
}

int main(int argc, char **argv)
{
	uint64_t target = 200000, last_done = 0;
	double t0, last_progress;
	int i;

	S.rng = 0x12345678;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ops") && i + 1 < argc)
			target = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			S.rng = (uint32_t)strtoul(argv[++i], NULL, 0) | 1;
		else if (!strcmp(argv[i], "--quiet"))
			S.quiet = 1;
		else {
			fprintf(stderr, "usage: soak [--ops N] [--seed S] [--quiet]\n");
			return 2;
		}
	}
	setup();
	t0 = last_progress = now_s();
	while (S.sends_posted < target || outstanding()) {
		int posted = 0;

		if (S.sends_posted < target) {
			for (i = 0; i < NSTREAMS; i++) {
				struct stream *l = &S.stream[i];
				int burst = 1 + (int)(rnd() % 4), b;

				for (b = 0; b < burst && S.sends_posted < target; b++)
					posted += post_one(l);
				ring(l);
			}
		} else {
			for (i = 0; i < NSTREAMS; i++)
				close_stream(&S.stream[i]);
		}
		while (poll_cq(&S.scq) + poll_cq(&S.rcq) > 0)
			;
		if (S.sends_done != last_done) {
			last_done = S.sends_done;
			last_progress = now_s();
		} else if (!posted && now_s() - last_progress > 20) {
			report(target, now_s() - t0);
			FAIL("no progress for 20 s: %" PRIu64 " sends outstanding",
			     S.sends_posted - S.sends_done);
		}
		if (!S.quiet && (S.sends_done & 0xfffff) == 0 && S.sends_done)
			fprintf(stderr, "soak: %" PRIu64 " done\r", S.sends_done);
	}
	if (S.sends_done != S.sends_posted)
		FAIL("%" PRIu64 " sends posted, %" PRIu64 " completed",
		     S.sends_posted, S.sends_done);
	report(target, now_s() - t0);
	for (i = 0; i < NSTREAMS; i++) {
		mlx4dv_sq_ring_release(&S.stream[i].sq);
		if (!S.stream[i].on_srq)
			mlx4dv_rq_ring_release(&S.stream[i].rq);
		ibv_destroy_qp(S.stream[i].sqp);
		ibv_destroy_qp(S.stream[i].rqp);
	}
	mlx4dv_srq_ring_release(&S.srq);
	mlx4dv_cq_ring_release(&S.scq);
	mlx4dv_cq_ring_release(&S.rcq);
	ibv_destroy_srq(S.srq_v);
	ibv_destroy_cq(S.scq_v);
	ibv_destroy_cq(S.rcq_v);
	ev_close(&S.dev);
	printf("soak: PASS\n");
	return 0;
}
