/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The verbs path: libmlx4 behind ibv_post_send(), ibv_post_recv() and
 * ibv_poll_cq(). Work requests are built once per lane, so the measured
 * loops hold the verbs calls alone (filling a work request, which a real
 * program also pays for, is not counted against the verbs path).
 */
#include "bench_cases.h"
#include "bench_device.h"

#include <stdlib.h>
#include <string.h>

struct verbs_reqs {
	struct ibv_sge write_sge[BENCH_ROUND];
	struct ibv_send_wr write[BENCH_ROUND];		/* one per call */
	struct ibv_send_wr write_chain[BENCH_ROUND];	/* chains of 32 */
	struct ibv_sge inline_sge[BENCH_ROUND];
	struct ibv_send_wr inline_send[BENCH_ROUND];
	struct ibv_sge ud_sge[BENCH_ROUND];
	struct ibv_send_wr ud_send[BENCH_ROUND];
	struct ibv_sge recv_sge[BENCH_ROUND];
	struct ibv_recv_wr recv[BENCH_ROUND];		/* one per call */
	struct ibv_recv_wr recv_chain[BENCH_ROUND];	/* chains of 32 */
	struct ibv_sge udrecv_sge[BENCH_ROUND];
	struct ibv_recv_wr udrecv[BENCH_ROUND];
};

static uint64_t slot_addr(const uint8_t *base, uint32_t i)
{
	return (uint64_t)(uintptr_t)(base + (size_t)i * BENCH_SLOT);
}

static void build_send(struct ibv_send_wr *wr, struct ibv_sge *sge,
		       uint32_t i, enum ibv_wr_opcode op, unsigned flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = i;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = op;
	wr->send_flags = IBV_SEND_SIGNALED | flags;
}

void bench_verbs_prepare(struct bench_lane *l)
{
	struct verbs_reqs *r = calloc(1, sizeof(*r));

	if (!r)
		bench_die("out of memory");
	for (uint32_t i = 0; i < BENCH_ROUND; i++) {
		uint64_t src = slot_addr(l->src, i);

		r->write_sge[i] = (struct ibv_sge){ src, BENCH_WRITE_BYTES, l->lkey };
		build_send(&r->write[i], &r->write_sge[i], i, IBV_WR_RDMA_WRITE, 0);
		r->write[i].wr.rdma.remote_addr = slot_addr(l->dst, i);
		r->write[i].wr.rdma.rkey = l->rkey;
		r->write_chain[i] = r->write[i];
		if ((i + 1) % BENCH_SEND_BATCH)
			r->write_chain[i].next = &r->write_chain[i + 1];

		r->inline_sge[i] = (struct ibv_sge){ src, BENCH_INLINE_BYTES, l->lkey };
		build_send(&r->inline_send[i], &r->inline_sge[i], i, IBV_WR_SEND,
			   IBV_SEND_INLINE);

		r->ud_sge[i] = (struct ibv_sge){ src, BENCH_UD_BYTES, l->lkey };
		build_send(&r->ud_send[i], &r->ud_sge[i], i, IBV_WR_SEND, 0);
		r->ud_send[i].wr.ud.ah = l->ud.ah;
		r->ud_send[i].wr.ud.remote_qpn = l->ud_qpn;
		r->ud_send[i].wr.ud.remote_qkey = BENCH_QKEY;

		r->recv_sge[i] = (struct ibv_sge){ slot_addr(l->rcv, i), BENCH_SLOT, l->lkey };
		r->recv[i] = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &r->recv_sge[i],
						   .num_sge = 1 };
		r->recv_chain[i] = r->recv[i];
		if ((i + 1) % BENCH_RECV_BATCH)
			r->recv_chain[i].next = &r->recv_chain[i + 1];

		r->udrecv_sge[i] = (struct ibv_sge){ slot_addr(l->udrcv, i), BENCH_SLOT,
						     l->lkey };
		r->udrecv[i] = (struct ibv_recv_wr){ .wr_id = i,
						     .sg_list = &r->udrecv_sge[i],
						     .num_sge = 1 };
	}
	l->verbs = r;
}

/* ---- unmeasured helpers ------------------------------------------------ */

static void post_sends(struct ibv_qp *qp, struct ibv_send_wr *wrs, uint32_t n)
{
	struct ibv_send_wr *bad;

	for (uint32_t i = 0; i < n; i++) {
		int err = ibv_post_send(qp, &wrs[i], &bad);

		if (err)
			bench_fail("ibv_post_send: %s", strerror(err));
	}
}

static void post_recvs(struct ibv_qp *qp, struct ibv_recv_wr *wrs, uint32_t n)
{
	struct ibv_recv_wr *bad;

	for (uint32_t i = 0; i < n; i++) {
		int err = ibv_post_recv(qp, &wrs[i], &bad);

		if (err)
			bench_fail("ibv_post_recv: %s", strerror(err));
	}
}

/* Takes n completions that must already be in the CQ: success, the given
 * opcode, wr_id 0..n-1 in order, and (receives) the given byte count. */
static void drain(struct ibv_cq *cq, uint32_t n, enum ibv_wc_opcode op,
		  uint32_t byte_len)
{
	struct ibv_wc wc[BENCH_POLL_BATCH];
	uint32_t got = 0;

	while (got < n) {
		int c = ibv_poll_cq(cq, BENCH_POLL_BATCH, wc);

		if (c < 0)
			bench_fail("ibv_poll_cq: %d", c);
		if (c == 0)
			bench_fail("%u of %u completions missing after the device went idle",
				   n - got, n);
		for (int j = 0; j < c; j++, got++) {
			if (wc[j].status != IBV_WC_SUCCESS || wc[j].opcode != op ||
			    wc[j].wr_id != got ||
			    ((op & IBV_WC_RECV) && wc[j].byte_len != byte_len))
				bench_fail("completion %u: status %s opcode %d wr_id %llu byte_len %u",
					   got, ibv_wc_status_str(wc[j].status), (int)wc[j].opcode,
					   (unsigned long long)wc[j].wr_id, wc[j].byte_len);
		}
	}
}

static void expect_empty(struct ibv_cq *cq)
{
	struct ibv_wc wc;

	if (ibv_poll_cq(cq, 1, &wc))
		bench_fail("unexpected completion (status %s)", ibv_wc_status_str(wc.status));
}

static void check_posted(int err, const char *call)
{
	if (err)
		bench_fail("%s: %s", call, strerror(err));
}

/* ---- send posting ------------------------------------------------------ */

static void verbs_write(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->rc.qp[0];
	struct ibv_send_wr *bad;
	int err = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		err |= ibv_post_send(qp, &r->write[i], &bad);
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_send");
	bench_device_run_paused();
	drain(l->rc.cq[0], n, IBV_WC_RDMA_WRITE, 0);
	bench_expect_slots("verbs path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write");
}

static void verbs_write_batch(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->rc.qp[0];
	struct ibv_send_wr *bad;
	int err = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_SEND_BATCH)
		err |= ibv_post_send(qp, &r->write_chain[i], &bad);
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_send");
	bench_device_run_paused();
	drain(l->rc.cq[0], n, IBV_WC_RDMA_WRITE, 0);
	bench_expect_slots("verbs path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write batch");
}

/* libmlx4 sends a single inline WQE through BlueFlame whenever the device
 * has BlueFlame registers (providers/mlx4/qp.c): the inline-send and the
 * BlueFlame cases are the same call on this path. */
static void verbs_inline_send(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->rc.qp[0];
	struct ibv_send_wr *bad;
	int err = 0;

	post_recvs(l->rc.qp[1], r->recv, n);
	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		err |= ibv_post_send(qp, &r->inline_send[i], &bad);
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_send");
	bench_device_run_paused();
	drain(l->rc.cq[0], n, IBV_WC_SEND, 0);
	drain(l->rc.cq[1], n, IBV_WC_RECV, BENCH_INLINE_BYTES);
	bench_expect_slots("verbs path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, "inline send");
}

static void verbs_ud_send(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->ud.qp[0];
	struct ibv_send_wr *bad;
	int err = 0;

	post_recvs(l->ud.qp[1], r->udrecv, n);
	bench_fill_src(l, n, BENCH_UD_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		err |= ibv_post_send(qp, &r->ud_send[i], &bad);
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_send");
	bench_device_run_paused();
	drain(l->ud.cq[0], n, IBV_WC_SEND, 0);
	drain(l->ud.cq[1], n, IBV_WC_RECV, BENCH_GRH_BYTES + BENCH_UD_BYTES);
	bench_expect_slots("verbs path", l, l->udrcv, BENCH_GRH_BYTES, n, BENCH_UD_BYTES, "UD send");
}

/* ---- receive posting --------------------------------------------------- */

/* The receives of a round are consumed by inline sends from the peer. */
static void consume_recvs(struct bench_lane *l, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;

	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	post_sends(l->rc.qp[0], r->inline_send, n);
	bench_device_run_paused();
	drain(l->rc.cq[0], n, IBV_WC_SEND, 0);
	drain(l->rc.cq[1], n, IBV_WC_RECV, BENCH_INLINE_BYTES);
	bench_expect_slots("verbs path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, "receive");
}

static void verbs_recv(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->rc.qp[1];
	struct ibv_recv_wr *bad;
	int err = 0;

	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		err |= ibv_post_recv(qp, &r->recv[i], &bad);
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_recv");
	consume_recvs(l, n);
}

static void verbs_recv_batch(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->rc.qp[1];
	struct ibv_recv_wr *bad;
	int err = 0;

	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_RECV_BATCH)
		err |= ibv_post_recv(qp, &r->recv_chain[i], &bad);
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_recv");
	consume_recvs(l, n);
}

/* ---- polling ----------------------------------------------------------- */

/* n RDMA-write completions waiting in the CQ, the engine paused. */
static void produce_cqes(struct bench_lane *l, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	post_sends(l->rc.qp[0], r->write, n);
	bench_device_run_paused();
}

static void check_polled(uint32_t got, uint32_t want, int status, uint64_t id_sum)
{
	uint64_t want_sum = (uint64_t)want * (want - 1) / 2;

	if (got != want || status || id_sum != want_sum)
		bench_fail("verbs path poll: %u of %u completions, status bits 0x%x, wr_id sum %llu (want %llu)",
			   got, want, status, (unsigned long long)id_sum,
			   (unsigned long long)want_sum);
}

static void verbs_poll_hit(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct ibv_cq *cq = l->rc.cq[0];
	struct ibv_wc wc;
	uint32_t got = 0;
	int status = 0;
	uint64_t id_sum = 0;

	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		got += (uint32_t)ibv_poll_cq(cq, 1, &wc);
		status |= wc.status;
		id_sum += wc.wr_id;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, status, id_sum);
	expect_empty(cq);
	bench_expect_slots("verbs path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "poll");
}

/* n receive completions waiting in the receive CQ (their sends' CQEs
 * taken), the engine paused; polled one per call. */
static void verbs_poll_recv(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_cq *cq = l->rc.cq[1];
	struct ibv_wc wc;
	uint32_t got = 0, bytes = 0;
	int status = 0;
	uint64_t id_sum = 0;

	post_recvs(l->rc.qp[1], r->recv, n);
	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	post_sends(l->rc.qp[0], r->inline_send, n);
	bench_device_run_paused();
	drain(l->rc.cq[0], n, IBV_WC_SEND, 0);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		got += (uint32_t)ibv_poll_cq(cq, 1, &wc);
		status |= wc.status;
		id_sum += wc.wr_id;
		bytes += wc.byte_len;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, status, id_sum);
	if (bytes != n * BENCH_INLINE_BYTES)
		bench_fail("verbs path receive poll: %u bytes, want %u", bytes,
			   n * BENCH_INLINE_BYTES);
	expect_empty(cq);
	bench_expect_slots("verbs path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, "receive poll");
}

static void verbs_poll_miss(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct ibv_cq *cq = l->rc.cq[0];
	struct ibv_wc wc;
	int got = 0;

	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		got |= ibv_poll_cq(cq, 1, &wc);
	bench_meter_stop(m, n);
	if (got)
		bench_fail("verbs path: an empty CQ returned %d", got);
}

static void verbs_poll_batch(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct ibv_cq *cq = l->rc.cq[0];
	struct ibv_wc wc[BENCH_POLL_BATCH];
	uint32_t got = 0;
	int status = 0;
	uint64_t id_sum = 0;

	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_POLL_BATCH) {
		int c = ibv_poll_cq(cq, BENCH_POLL_BATCH, wc);

		for (int j = 0; j < c; j++) {
			status |= wc[j].status;
			id_sum += wc[j].wr_id;
		}
		got += (uint32_t)c;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, status, id_sum);
	expect_empty(cq);
}

/* ---- full loops (engine running) --------------------------------------- */

/* Waits for one completion. Under callgrind the wait for the device is
 * excluded, so that the count holds the post and one poll that hits. */
BENCH_INLINE int verbs_wait_one(struct ibv_cq *cq, struct ibv_wc *wc,
				 struct bench_meter *m)
{
	int c;

	if (m->instructions) {
		bench_meter_exclude_begin();
		bench_device_wait_idle();
		bench_meter_exclude_end();
	}
	while ((c = ibv_poll_cq(cq, 1, wc)) == 0)
		m->empty_polls++;
	return c;
}

static void verbs_loop_write(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *qp = l->rc.qp[0];
	struct ibv_cq *cq = l->rc.cq[0];
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int err = 0, status = 0;
	uint32_t got = 0;
	uint64_t id_sum = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		err |= ibv_post_send(qp, &r->write[i], &bad);
		got += (uint32_t)verbs_wait_one(cq, &wc, m);
		status |= wc.status;
		id_sum += wc.wr_id;
	}
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_send");
	check_polled(got, n, status, id_sum);
	bench_expect_slots("verbs path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write loop");
}

static void verbs_loop_send_recv(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct verbs_reqs *r = l->verbs;
	struct ibv_qp *sqp = l->rc.qp[0], *rqp = l->rc.qp[1];
	struct ibv_cq *scq = l->rc.cq[0], *rcq = l->rc.cq[1];
	struct ibv_send_wr *bad;
	struct ibv_recv_wr *badr;
	struct ibv_wc wc;
	int err = 0, status = 0;
	uint32_t got = 0, bytes = 0;

	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		err |= ibv_post_recv(rqp, &r->recv[i], &badr);
		err |= ibv_post_send(sqp, &r->inline_send[i], &bad);
		got += (uint32_t)verbs_wait_one(scq, &wc, m);
		status |= wc.status;
		got += (uint32_t)verbs_wait_one(rcq, &wc, m);
		status |= wc.status;
		bytes += wc.byte_len;
	}
	bench_meter_stop(m, n);
	check_posted(err, "ibv_post_send/ibv_post_recv");
	if (got != 2 * n || status || bytes != n * BENCH_INLINE_BYTES)
		bench_fail("verbs send/recv loop: %u of %u completions, status 0x%x, %u bytes",
			   got, 2 * n, status, bytes);
	bench_expect_slots("verbs path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, "send/recv loop");
}

bench_round_fn *const bench_verbs_rounds[BENCH_NCASES] = {
	[BENCH_CASE_WRITE] = verbs_write,
	[BENCH_CASE_INLINE_SEND] = verbs_inline_send,
	[BENCH_CASE_UD_SEND] = verbs_ud_send,
	[BENCH_CASE_WRITE_BATCH] = verbs_write_batch,
	[BENCH_CASE_WRITE_BATCH_TMPL] = verbs_write_batch,	/* the same chain */
	[BENCH_CASE_BLUEFLAME] = verbs_inline_send,
	[BENCH_CASE_RECV] = verbs_recv,
	[BENCH_CASE_RECV_BATCH] = verbs_recv_batch,
	[BENCH_CASE_RECV_BURST] = verbs_recv_batch,
	[BENCH_CASE_POLL_HIT] = verbs_poll_hit,
	[BENCH_CASE_POLL_HIT_WC] = verbs_poll_hit,
	[BENCH_CASE_POLL_RECV] = verbs_poll_recv,
	[BENCH_CASE_POLL_MISS] = verbs_poll_miss,
	[BENCH_CASE_POLL_BATCH] = verbs_poll_batch,
	[BENCH_CASE_POLL_BATCH_WC] = verbs_poll_batch,
	[BENCH_CASE_POLL_BURST] = verbs_poll_batch,
	[BENCH_CASE_LOOP_WRITE] = verbs_loop_write,
	[BENCH_CASE_LOOP_SEND_RECV] = verbs_loop_send_recv,
};
