/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The direct path: the static inline data path of <infiniband/mlx4dv.h> on
 * queue handles from libmlx4dv. It does what the verbs path does, wr_id
 * bookkeeping included (the handles have wrid tables), so that both sides
 * hand the same information back:
 *  - posts: one-call write (wr_id as its argument) + mlx4dv_sq_ring_doorbell()
 *    (or mlx4dv_sq_ring_one()); mlx4dv_rq_post() / mlx4dv_rq_write() +
 *    mlx4dv_rq_ring_doorbell();
 *  - polls, lean: mlx4dv_cq_poll_sq() (owner, status, QPN, SQ
 *    accounting and wr_id in one call) per CQE + mlx4dv_cq_update_ci()
 *    per call (per CQE for poll_hit, per 16 for poll_batch16); the full
 *    loops keep the composable form, mlx4dv_cq_next() +
 *    mlx4dv_sq_complete_cqe() + mlx4dv_cq_update_ci();
 *  - polls, *_wc cases: mlx4dv_cq_poll_wc(), a full ibv_wc as libmlx4
 *    fills it.
 */
#include "bench_cases.h"
#include "bench_device.h"

#include <stdlib.h>
#include <string.h>

struct direct_state {
	struct mlx4dv_ud_av ud_dest;	/* where UD sends go */
	struct mlx4dv_poll_qp rc_poll[2], ud_poll[2];	/* one per CQ */
};

static uint64_t slot_addr(const uint8_t *base, uint64_t i)
{
	return (uint64_t)(uintptr_t)(base + (size_t)i * BENCH_SLOT);
}

static struct mlx4dv_sq_ring *sq_of(struct bench_pair *p, int i)
{
	return &p->rings[i].sq;
}

static struct mlx4dv_rq_ring *rq_of(struct bench_pair *p, int i)
{
	return &p->rings[i].rq;
}

/* Each QP has one CQ for both directions: the handle calls it send_cq. */
static struct mlx4dv_cq_ring *cq_of(struct bench_pair *p, int i)
{
	return &p->rings[i].send_cq;
}

/* ---- the UD destination ------------------------------------------------ */

/*
 * The direct path needs the PD number for the address vector, which
 * libmlx4 keeps private. libmlx4 writes it into every UD WQE it builds, so
 * one UD send through the verbs lane (same PD, same port) shows it; the
 * address vector built here must then equal libmlx4's byte for byte.
 */
static void verbs_ud_probe(struct bench_env *env, struct mlx4_wqe_datagram_seg *out)
{
	struct bench_lane *v = &env->lane[BENCH_VERBS];
	struct ibv_sge rsge = { slot_addr(v->udrcv, 0), BENCH_SLOT, v->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 0, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_sge ssge = { slot_addr(v->src, 0), BENCH_UD_BYTES, v->lkey };
	struct ibv_send_wr swr = {
		.wr_id = 0, .sg_list = &ssge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;
	struct mlx4dv_qp dvqp;
	struct mlx4dv_obj obj = { .qp = { .in = v->ud.qp[0], .out = &dvqp } };
	struct ibv_wc wc;
	uint8_t *wqe;

	swr.wr.ud.ah = v->ud.ah;
	swr.wr.ud.remote_qpn = v->ud_qpn;
	swr.wr.ud.remote_qkey = BENCH_QKEY;
	memset(&dvqp, 0, sizeof(dvqp));
	if (mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP))
		bench_die("mlx4dv_init_obj(verbs UD QP) failed");
	bench_device_pause();
	if (ibv_post_recv(v->ud.qp[1], &rwr, &rbad) ||
	    ibv_post_send(v->ud.qp[0], &swr, &sbad))
		bench_die("UD probe: post failed");
	/* The first WQE of the verbs UD QP's SQ, datagram segment after the
	 * 16-byte control segment. */
	wqe = (uint8_t *)dvqp.buf.buf + dvqp.sq.offset;
	memcpy(out, wqe + sizeof(struct mlx4_wqe_ctrl_seg), sizeof(*out));
	bench_device_run_paused();
	for (int cq = 0; cq < 2; cq++)
		if (ibv_poll_cq(v->ud.cq[cq], 1, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
			bench_fail("UD probe: completion missing or failed");
}

static void build_ud_dest(struct bench_env *env, struct direct_state *ds)
{
	struct mlx4_wqe_datagram_seg ref;
	struct ibv_ah_attr ah;
	struct mlx4dv_ud_av_eth eth;
	uint32_t pdn;
	int err;

	verbs_ud_probe(env, &ref);
	pdn = mlx4dv_be32_to_cpu(ref.av.port_pd) & 0xffffff;
	memset(&ah, 0, sizeof(ah));
	ah.dlid = env->lid;
	ah.port_num = env->port;
	if (env->ethernet) {
		ah.is_global = 1;
		ah.grh.dgid = env->gid;
		ah.grh.hop_limit = 64;
		memcpy(eth.mac, ref.mac, 6);
		eth.vlan_id = 0xffff;
	}
	err = mlx4dv_ud_av_from_attr(&ds->ud_dest, pdn, &ah, env->ethernet ? &eth : NULL);
	if (err)
		bench_die("mlx4dv_ud_av_from_attr: %s", strerror(err));
	/* On InfiniBand libmlx4 leaves the AH's VLAN and MAC unset
	 * (providers/mlx4/verbs.c mlx4_create_ah: malloc, only the AV is
	 * zeroed), so only Ethernet compares them. */
	if (memcmp(&ds->ud_dest.av, &ref.av, sizeof(ref.av)) ||
	    (env->ethernet && (ds->ud_dest.vlan != ref.vlan ||
			       memcmp(ds->ud_dest.mac, ref.mac, 6))))
		bench_fail("the UD address vector differs from libmlx4's");
}

static void poll_entry(struct mlx4dv_poll_qp *e, struct bench_lane *l,
		       struct bench_pair *p, int i)
{
	e->qpn = p->qp[i]->qp_num;
	e->rx_flags = l->rx_flags;
	e->sq = sq_of(p, i);
	e->rq = rq_of(p, i);
	e->srq = NULL;
}

void bench_direct_prepare(struct bench_env *env)
{
	struct bench_lane *l = &env->lane[BENCH_DIRECT];
	struct direct_state *ds = calloc(1, sizeof(*ds));

	if (!ds)
		bench_die("out of memory");
	for (int i = 0; i < 2; i++) {
		poll_entry(&ds->rc_poll[i], l, &l->rc, i);
		poll_entry(&ds->ud_poll[i], l, &l->ud, i);
		if (!l->rc.rings[i].sq.wrid || !l->rc.rings[i].rq.wrid)
			bench_die("direct lane: the handles have no wrid table");
	}
	build_ud_dest(env, ds);
	l->direct = ds;
}

/* ---- unmeasured helpers ------------------------------------------------ */

static void drain(struct mlx4dv_cq_ring *cq, const struct mlx4dv_poll_qp *qp,
		  uint32_t n, enum ibv_wc_opcode op, uint32_t byte_len)
{
	struct ibv_wc wc[BENCH_POLL_BATCH];
	uint32_t got = 0;

	while (got < n) {
		uint32_t c = 0;
		int err = mlx4dv_cq_poll_wc(cq, qp, 1, BENCH_POLL_BATCH, wc, &c);

		if (err && err != EAGAIN)
			bench_fail("mlx4dv_cq_poll_wc: %s", strerror(err));
		if (c == 0)
			bench_fail("%u of %u completions missing after the device went idle",
				   n - got, n);
		for (uint32_t j = 0; j < c; j++, got++) {
			if (wc[j].status != IBV_WC_SUCCESS || wc[j].opcode != op ||
			    wc[j].wr_id != got ||
			    ((op & IBV_WC_RECV) && wc[j].byte_len != byte_len))
				bench_fail("direct completion %u: status %s opcode %d wr_id %llu byte_len %u",
					   got, ibv_wc_status_str(wc[j].status), (int)wc[j].opcode,
					   (unsigned long long)wc[j].wr_id, wc[j].byte_len);
		}
	}
}

static void check_posted(int err, const char *what)
{
	if (err)
		bench_fail("direct path, %s: a post failed (%s)", what, strerror(err));
}

static struct direct_state *state(struct bench_lane *l)
{
	return l->direct;
}

/* ---- one operation each (inlined into the measured loops) -------------- */

/*
 * The lane's buffers and keys, copied into a local before a measured
 * loop. The device barriers inside every post are compiler memory
 * barriers, so values read through the lane pointer would be reloaded
 * on every operation; a program keeps them in registers, and so does
 * each measured loop here (the verbs loops keep their work-request array
 * and QP in registers too).
 */
struct direct_args {
	const uint8_t *src, *dst, *rcv, *udrcv;
	uint32_t lkey, rkey;
};

BENCH_INLINE struct direct_args args_of(const struct bench_lane *l)
{
	struct direct_args a = { l->src, l->dst, l->rcv, l->udrcv, l->lkey, l->rkey };

	return a;
}

BENCH_INLINE int post_write(const struct direct_args *a,
			     struct mlx4dv_sq_ring *sq, uint64_t i)
{
	struct ibv_sge sge = { slot_addr(a->src, i), BENCH_WRITE_BYTES, a->lkey };

	return mlx4dv_sq_write_rdma_write(sq, i, a->rkey, slot_addr(a->dst, i), &sge, 1,
				    IBV_SEND_SIGNALED);
}

BENCH_INLINE int post_inline_send(const struct direct_args *a,
				   struct mlx4dv_sq_ring *sq, uint64_t i)
{
	return mlx4dv_sq_write_send_inline(sq, i, a->src + (size_t)i * BENCH_SLOT,
					  BENCH_INLINE_BYTES, IBV_SEND_SIGNALED);
}

BENCH_INLINE int post_recv(const struct direct_args *a,
			    struct mlx4dv_rq_ring *rq, uint64_t i)
{
	struct ibv_sge sge = { slot_addr(a->rcv, i), BENCH_SLOT, a->lkey };

	return mlx4dv_rq_post(rq, i, &sge, 1);
}

/* One send completion, lean: 1 taken, 0 none; *bad gets error bits (an
 * errno other than EAGAIN: an error, receive or foreign CQE, left in the
 * CQ). */
BENCH_INLINE uint32_t take_send(struct mlx4dv_cq_ring *cq,
				 struct mlx4dv_sq_ring *sq, uint64_t *wr_id,
				 int *bad)
{
	int r = mlx4dv_cq_poll_sq(cq, sq, wr_id, NULL);

	if (r) {
		*bad |= r == EAGAIN ? 0 : r;
		return 0;
	}
	mlx4dv_cq_update_ci(cq);
	return 1;
}

/* ---- send posting ------------------------------------------------------ */

static void direct_write(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	int err = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		err |= post_write(&a, sq, i);
		mlx4dv_sq_ring_doorbell(sq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "RDMA write");
	bench_device_run_paused();
	drain(cq_of(&l->rc, 0), &state(l)->rc_poll[0], n, IBV_WC_RDMA_WRITE, 0);
	bench_expect_slots("direct path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write");
}

static void direct_write_batch(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	int err = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_SEND_BATCH) {
		for (uint64_t j = i; j < i + BENCH_SEND_BATCH; j++)
			err |= post_write(&a, sq, j);
		mlx4dv_sq_ring_doorbell(sq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "RDMA write batch");
	bench_device_run_paused();
	drain(cq_of(&l->rc, 0), &state(l)->rc_poll[0], n, IBV_WC_RDMA_WRITE, 0);
	bench_expect_slots("direct path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write batch");
}

/* The batch API: the WQE's constant words are prepared once per round
 * (outside the measured loop, as a program would do at setup); each WQE
 * then costs the two addresses and the wr_id. */
static void direct_write_batch_tmpl(struct bench_lane *l, struct bench_meter *m,
				    uint32_t n)
{
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	struct mlx4dv_sq_wqe_template t;
	/* Locals, so that the barrier in each post does not make the
	 * compiler reload the lane's buffer addresses. */
	uint64_t src = slot_addr(l->src, 0), dst = slot_addr(l->dst, 0);
	uint32_t posted = 0;
	int err;

	err = mlx4dv_sq_wqe_template_set(&t, sq, IBV_WR_RDMA_WRITE, l->rkey,
					  l->lkey, BENCH_WRITE_BYTES, IBV_SEND_SIGNALED,
					  0);
	check_posted(err, "RDMA write template");
	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_SEND_BATCH) {
		struct mlx4dv_sq_batch b;

		err |= mlx4dv_sq_batch_begin(sq, &b, &t, BENCH_SEND_BATCH);
		for (uint32_t j = i; j < i + BENCH_SEND_BATCH; j++) {
			err |= mlx4dv_sq_batch_write(&b, j, dst, src);
			src += BENCH_SLOT;
			dst += BENCH_SLOT;
		}
		posted += mlx4dv_sq_batch_end(sq, &b);
		mlx4dv_sq_ring_doorbell(sq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "RDMA write template batch");
	if (posted != n)
		bench_fail("direct path, template batch: %u of %u WQEs published",
			   posted, n);
	bench_device_run_paused();
	drain(cq_of(&l->rc, 0), &state(l)->rc_poll[0], n, IBV_WC_RDMA_WRITE, 0);
	bench_expect_slots("direct path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write template batch");
}

static void finish_inline_sends(struct bench_lane *l, uint32_t n, const char *what)
{
	struct direct_state *ds = state(l);

	bench_device_run_paused();
	drain(cq_of(&l->rc, 0), &ds->rc_poll[0], n, IBV_WC_SEND, 0);
	drain(cq_of(&l->rc, 1), &ds->rc_poll[1], n, IBV_WC_RECV, BENCH_INLINE_BYTES);
	bench_expect_slots("direct path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, what);
}

static void post_recvs(struct bench_lane *l, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_rq_ring *rq = rq_of(&l->rc, 1);
	int err = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct ibv_sge sge = { slot_addr(a.rcv, i), BENCH_SLOT, a.lkey };

		err |= mlx4dv_rq_write(rq, i, &sge, 1);
	}
	mlx4dv_rq_ring_doorbell(rq);
	check_posted(err, "receives");
}

static void direct_inline_send(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	int err = 0;

	post_recvs(l, n);
	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		err |= post_inline_send(&a, sq, i);
		mlx4dv_sq_ring_doorbell(sq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "inline send");
	finish_inline_sends(l, n, "inline send");
}

static void direct_blueflame(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	uint32_t by_bf = 0;
	int err = 0;

	post_recvs(l, n);
	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t head = sq->head;

		err |= post_inline_send(&a, sq, i);
		by_bf += (uint32_t)mlx4dv_sq_ring_one(sq, head);
	}
	bench_meter_stop(m, n);
	check_posted(err, "BlueFlame send");
	if ((sq->flags & MLX4DV_SQ_RING_BLUEFLAME) && by_bf != n)
		bench_fail("direct path: %u of %u eligible WQEs went by BlueFlame", by_bf, n);
	finish_inline_sends(l, n, "BlueFlame send");
}

static void direct_ud_send(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct direct_state *ds = state(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->ud, 0);
	struct mlx4dv_rq_ring *rq = rq_of(&l->ud, 1);
	uint32_t ud_qpn = l->ud_qpn;
	int err = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct ibv_sge sge = { slot_addr(a.udrcv, i), BENCH_SLOT, a.lkey };

		err |= mlx4dv_rq_write(rq, i, &sge, 1);
	}
	mlx4dv_rq_ring_doorbell(rq);
	check_posted(err, "UD receives");
	bench_fill_src(l, n, BENCH_UD_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		struct ibv_sge sge = { slot_addr(a.src, i), BENCH_UD_BYTES, a.lkey };

		err |= mlx4dv_sq_write_ud_send(sq, i, &ds->ud_dest, ud_qpn, BENCH_QKEY,
					      &sge, 1, IBV_SEND_SIGNALED);
		mlx4dv_sq_ring_doorbell(sq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "UD send");
	bench_device_run_paused();
	drain(cq_of(&l->ud, 0), &ds->ud_poll[0], n, IBV_WC_SEND, 0);
	drain(cq_of(&l->ud, 1), &ds->ud_poll[1], n, IBV_WC_RECV,
	      BENCH_GRH_BYTES + BENCH_UD_BYTES);
	bench_expect_slots("direct path", l, l->udrcv, BENCH_GRH_BYTES, n, BENCH_UD_BYTES, "UD send");
}

/* ---- receive posting --------------------------------------------------- */

static void consume_recvs(struct bench_lane *l, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	int err = 0;

	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	for (uint32_t i = 0; i < n; i++)
		err |= post_inline_send(&a, sq, i);
	mlx4dv_sq_ring_doorbell(sq);
	check_posted(err, "sends that consume the receives");
	finish_inline_sends(l, n, "receive");
}

static void direct_recv(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_rq_ring *rq = rq_of(&l->rc, 1);
	int err = 0;

	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		err |= post_recv(&a, rq, i);
	bench_meter_stop(m, n);
	check_posted(err, "receive");
	consume_recvs(l, n);
}

static void direct_recv_batch(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_rq_ring *rq = rq_of(&l->rc, 1);
	int err = 0;

	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_RECV_BATCH) {
		for (uint32_t j = i; j < i + BENCH_RECV_BATCH; j++) {
			struct ibv_sge sge = { slot_addr(a.rcv, j), BENCH_SLOT, a.lkey };

			err |= mlx4dv_rq_write(rq, j, &sge, 1);
		}
		mlx4dv_rq_ring_doorbell(rq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "receive batch");
	consume_recvs(l, n);
}

/* The receives of direct_recv_batch(), 32 per mlx4dv_rq_write_burst()
 * call, from scatter entries and wr_ids built before the measured loop
 * (as the verbs lane's receive chain is). */
static void direct_recv_burst(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_rq_ring *rq = rq_of(&l->rc, 1);
	struct ibv_sge *sg = calloc(n, sizeof(*sg));
	uint64_t *ids = calloc(n, sizeof(*ids));
	int err = 0;

	if (!sg || !ids)
		bench_fail("direct path: no memory for %u receives", n);
	for (uint32_t j = 0; j < n; j++) {
		sg[j] = (struct ibv_sge){ slot_addr(a.rcv, j), BENCH_SLOT, a.lkey };
		ids[j] = j;
	}
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_RECV_BATCH) {
		err |= mlx4dv_rq_write_burst(rq, BENCH_RECV_BATCH, &ids[i], &sg[i]);
		mlx4dv_rq_ring_doorbell(rq);
	}
	bench_meter_stop(m, n);
	free(sg);
	free(ids);
	check_posted(err, "receive burst");
	consume_recvs(l, n);
}

/* ---- polling ----------------------------------------------------------- */

static void produce_cqes(struct bench_lane *l, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	int err = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	for (uint32_t i = 0; i < n; i++)
		err |= post_write(&a, sq, i);
	mlx4dv_sq_ring_doorbell(sq);
	check_posted(err, "RDMA writes that make CQEs");
	bench_device_run_paused();
}

static void check_polled(uint32_t got, uint32_t want, int bad, uint64_t id_sum)
{
	uint64_t want_sum = (uint64_t)want * (want - 1) / 2;

	if (got != want || bad || id_sum != want_sum)
		bench_fail("direct path poll: %u of %u completions, error bits 0x%x, wr_id sum %llu (want %llu)",
			   got, want, bad, (unsigned long long)id_sum,
			   (unsigned long long)want_sum);
}

static void expect_empty(struct bench_lane *l)
{
	if (mlx4dv_cq_peek(cq_of(&l->rc, 0)))
		bench_fail("direct path: unexpected completion left in the CQ");
}

static void direct_poll_hit(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	uint32_t got = 0;
	int bad = 0;
	uint64_t id_sum = 0;

	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t wr_id = 0;

		got += take_send(cq, sq, &wr_id, &bad);
		id_sum += wr_id;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, bad, id_sum);
	expect_empty(l);
	bench_expect_slots("direct path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "poll");
}

static void direct_poll_hit_wc(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	const struct mlx4dv_poll_qp *qp = &state(l)->rc_poll[0];
	struct ibv_wc wc;
	uint32_t got = 0;
	int bad = 0;
	uint64_t id_sum = 0;

	/* An empty poll leaves wc alone: start from a defined one. */
	memset(&wc, 0, sizeof(wc));
	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t c;	/* written on every return */

		(void)mlx4dv_cq_poll_wc(cq, qp, 1, 1, &wc, &c);
		got += c;
		bad |= wc.status;
		id_sum += wc.wr_id;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, bad, id_sum);
	expect_empty(l);
}

/* The receive twin of poll_hit: mlx4dv_cq_poll_rq() (owner, opcode,
 * QPN, RQ accounting, wr_id and byte count in one call) and
 * mlx4dv_cq_update_ci() per CQE. */
static void direct_poll_recv(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 1);
	struct mlx4dv_rq_ring *rq = rq_of(&l->rc, 1);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	uint32_t got = 0, bytes = 0;
	int bad = 0, err = 0;
	uint64_t id_sum = 0;

	post_recvs(l, n);
	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	for (uint32_t i = 0; i < n; i++)
		err |= post_inline_send(&a, sq, i);
	mlx4dv_sq_ring_doorbell(sq);
	check_posted(err, "sends that make receive CQEs");
	bench_device_run_paused();
	drain(cq_of(&l->rc, 0), &state(l)->rc_poll[0], n, IBV_WC_SEND, 0);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t wr_id = 0;
		uint32_t byte_len = 0;
		int r = mlx4dv_cq_poll_rq(cq, rq, &wr_id, &byte_len, NULL);

		if (r) {
			bad |= r == EAGAIN ? 0 : r;
			continue;
		}
		mlx4dv_cq_update_ci(cq);
		got++;
		id_sum += wr_id;
		bytes += byte_len;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, bad, id_sum);
	if (bytes != n * BENCH_INLINE_BYTES)
		bench_fail("direct path receive poll: %u bytes, want %u", bytes,
			   n * BENCH_INLINE_BYTES);
	if (mlx4dv_cq_peek(cq))
		bench_fail("direct path: unexpected completion left in the receive CQ");
	bench_expect_slots("direct path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, "receive poll");
}

static void direct_poll_miss(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	uint32_t got = 0;

	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++)
		got += mlx4dv_cq_next(cq) != NULL;
	bench_meter_stop(m, n);
	if (got)
		bench_fail("direct path: an empty CQ returned %u CQEs", got);
}

static void direct_poll_batch(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	uint32_t got = 0;
	int bad = 0;
	uint64_t id_sum = 0;

	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_POLL_BATCH) {
		uint32_t c = 0;
		int r = 0;

		while (c < BENCH_POLL_BATCH) {
			uint64_t wr_id = 0;

			r = mlx4dv_cq_poll_sq(cq, sq, &wr_id, NULL);
			if (r)
				break;
			id_sum += wr_id;
			c++;
		}
		bad |= r == EAGAIN ? 0 : r;
		if (c)
			mlx4dv_cq_update_ci(cq);
		got += c;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, bad, id_sum);
	expect_empty(l);
}

/* The CQEs of direct_poll_batch(), 16 per mlx4dv_cq_poll_sq_burst() call. */
static void direct_poll_burst(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	uint64_t ids[BENCH_POLL_BATCH];
	uint32_t got = 0;
	int bad = 0;
	uint64_t id_sum = 0;

	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_POLL_BATCH) {
		uint32_t c = 0;
		int r = mlx4dv_cq_poll_sq_burst(cq, sq, BENCH_POLL_BATCH, ids, &c);

		bad |= r == EAGAIN ? 0 : r;
		for (uint32_t j = 0; j < c; j++)
			id_sum += ids[j];
		if (c)
			mlx4dv_cq_update_ci(cq);
		got += c;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, bad, id_sum);
	expect_empty(l);
}

static void direct_poll_batch_wc(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	const struct mlx4dv_poll_qp *qp = &state(l)->rc_poll[0];
	struct ibv_wc wc[BENCH_POLL_BATCH];
	uint32_t got = 0;
	int bad = 0;
	uint64_t id_sum = 0;

	produce_cqes(l, n);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i += BENCH_POLL_BATCH) {
		uint32_t c;	/* written on every return */

		(void)mlx4dv_cq_poll_wc(cq, qp, 1, BENCH_POLL_BATCH, wc, &c);
		for (uint32_t j = 0; j < c; j++) {
			bad |= wc[j].status;
			id_sum += wc[j].wr_id;
		}
		got += c;
	}
	bench_meter_stop(m, n);
	check_polled(got, n, bad, id_sum);
	expect_empty(l);
}

/* ---- full loops (engine running) --------------------------------------- */

/* Waits for the next CQE; see verbs_wait_one() for the callgrind rule. */
BENCH_INLINE struct mlx4_cqe *wait_cqe(struct mlx4dv_cq_ring *cq,
					struct bench_meter *m)
{
	struct mlx4_cqe *cqe;

	if (m->instructions) {
		bench_meter_exclude_begin();
		bench_device_wait_idle();
		bench_meter_exclude_end();
	}
	while (!(cqe = mlx4dv_cq_next(cq)))
		m->empty_polls++;
	return cqe;
}

static void direct_loop_write(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	struct mlx4dv_cq_ring *cq = cq_of(&l->rc, 0);
	int err = 0, bad = 0;
	uint64_t id_sum = 0;

	bench_fill_src(l, n, BENCH_WRITE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		struct mlx4_cqe *cqe;
		uint64_t wr_id = 0;

		err |= post_write(&a, sq, i);
		mlx4dv_sq_ring_doorbell(sq);
		cqe = wait_cqe(cq, m);
		bad |= mlx4dv_cqe_is_error(cqe) | mlx4dv_sq_complete_cqe(sq, cqe, &wr_id);
		mlx4dv_cq_update_ci(cq);
		id_sum += wr_id;
	}
	bench_meter_stop(m, n);
	check_posted(err, "RDMA write loop");
	check_polled(n, n, bad, id_sum);
	bench_expect_slots("direct path", l, l->dst, 0, n, BENCH_WRITE_BYTES, "RDMA write loop");
}

static void direct_loop_send_recv(struct bench_lane *l, struct bench_meter *m, uint32_t n)
{
	const struct direct_args a = args_of(l);
	struct mlx4dv_sq_ring *sq = sq_of(&l->rc, 0);
	struct mlx4dv_rq_ring *rq = rq_of(&l->rc, 1);
	struct mlx4dv_cq_ring *scq = cq_of(&l->rc, 0), *rcq = cq_of(&l->rc, 1);
	int err = 0, bad = 0;
	uint32_t bytes = 0;

	bench_fill_src(l, n, BENCH_INLINE_BYTES);
	bench_meter_start(m);
	for (uint32_t i = 0; i < n; i++) {
		struct mlx4_cqe *cqe;
		uint64_t wr_id;

		err |= post_recv(&a, rq, i);
		err |= post_inline_send(&a, sq, i);
		mlx4dv_sq_ring_doorbell(sq);
		cqe = wait_cqe(scq, m);
		bad |= mlx4dv_cqe_is_error(cqe) | mlx4dv_sq_complete_cqe(sq, cqe, &wr_id);
		mlx4dv_cq_update_ci(scq);
		cqe = wait_cqe(rcq, m);
		bad |= mlx4dv_cqe_is_error(cqe) | mlx4dv_rq_complete(rq, cqe, &wr_id);
		bytes += mlx4dv_cqe_byte_len(cqe);
		mlx4dv_cq_update_ci(rcq);
	}
	bench_meter_stop(m, n);
	check_posted(err, "send/recv loop");
	if (bad || bytes != n * BENCH_INLINE_BYTES)
		bench_fail("direct send/recv loop: error bits 0x%x, %u bytes", bad, bytes);
	bench_expect_slots("direct path", l, l->rcv, 0, n, BENCH_INLINE_BYTES, "send/recv loop");
}

bench_round_fn *const bench_direct_rounds[BENCH_NCASES] = {
	[BENCH_CASE_WRITE] = direct_write,
	[BENCH_CASE_INLINE_SEND] = direct_inline_send,
	[BENCH_CASE_UD_SEND] = direct_ud_send,
	[BENCH_CASE_WRITE_BATCH] = direct_write_batch,
	[BENCH_CASE_WRITE_BATCH_TMPL] = direct_write_batch_tmpl,
	[BENCH_CASE_BLUEFLAME] = direct_blueflame,
	[BENCH_CASE_RECV] = direct_recv,
	[BENCH_CASE_RECV_BATCH] = direct_recv_batch,
	[BENCH_CASE_RECV_BURST] = direct_recv_burst,
	[BENCH_CASE_POLL_HIT] = direct_poll_hit,
	[BENCH_CASE_POLL_HIT_WC] = direct_poll_hit_wc,
	[BENCH_CASE_POLL_RECV] = direct_poll_recv,
	[BENCH_CASE_POLL_MISS] = direct_poll_miss,
	[BENCH_CASE_POLL_BATCH] = direct_poll_batch,
	[BENCH_CASE_POLL_BATCH_WC] = direct_poll_batch_wc,
	[BENCH_CASE_POLL_BURST] = direct_poll_burst,
	[BENCH_CASE_LOOP_WRITE] = direct_loop_write,
	[BENCH_CASE_LOOP_SEND_RECV] = direct_loop_send_recv,
};
