// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Completion timestamps on the software ConnectX-3: the attributes
 * (ibv_query_device_ex), the HCA core clock page (ibv_query_rt_values_ex,
 * against CLOCK_MONOTONIC: the device clock is CLOCK_MONOTONIC at the
 * reported frequency), and the stamps of extended CQs read three ways:
 * libmlx4's ibv_wc_read_completion_ts(), the header's
 * mlx4dv_cqe_timestamp() on the CQE bytes, and against clock readings
 * taken before the post and after the poll.
 */
#include "emu_test.h"

#include <errno.h>
#include <sched.h>
#include <time.h>

#include <infiniband/mlx4dv.h>
#include "test_exit.h"

#define KHZ 427000u
#define NSENDS 64

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_clock(struct ibv_context *ctx)
{
	struct ibv_values_ex v;

	memset(&v, 0, sizeof(v));
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	assert_int_equal(ibv_query_rt_values_ex(ctx, &v), 0);
	assert_true(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK);
	assert_int_equal(v.raw_clock.tv_sec, 0);
	return (uint64_t)v.raw_clock.tv_nsec;
}

static void test_device_attributes(void **state)
{
	struct emu_env e;
	struct ibv_device_attr_ex a;

	(void)state;
	emu_env_open(&e, 1);
	memset(&a, 0, sizeof(a));
	assert_int_equal(ibv_query_device_ex(e.ctx, NULL, &a), 0);
	/* mlx4_ib_query_device: 48-bit stamps, caps.hca_core_clock * 1000 */
	assert_int_equal(a.completion_timestamp_mask, 0xffffffffffffULL);
	assert_int_equal(a.hca_core_clock, KHZ);
	emu_env_close(&e);
}

/* The clock is never ahead of CLOCK_MONOTONIC * 427 MHz, and a pass of
 * the engine that began after time t has brought it to at least t. */
static void test_clock_page(void **state)
{
	struct emu_env e;
	uint64_t prev, t0, c, t1;

	(void)state;
	emu_env_open(&e, 1);
	prev = read_clock(e.ctx);
	for (int i = 0; i < 1000; i++) {
		c = read_clock(e.ctx);
		assert_true(c >= prev);
		prev = c;
	}
	for (int i = 0; i < 5; i++) {
		t0 = mono_ns();
		if (e.have_ctl)
			assert_int_equal(e.ctl.wait_idle(5000), 0);
		c = read_clock(e.ctx);
		t1 = mono_ns();
		assert_true(c <= mlx4dv_ns_to_ts(t1, KHZ));
		if (e.have_ctl)
			assert_true(c >= mlx4dv_ns_to_ts(t0, KHZ));
	}
	emu_env_close(&e);
}

/* With no verbs activity at all, the clock still advances. */
static void test_clock_runs_while_idle(void **state)
{
	struct emu_env e;
	struct timespec ten_ms = { 0, 10000000 };
	uint64_t c0, deadline;
	bool moved = false;

	(void)state;
	emu_env_open(&e, 1);
	c0 = read_clock(e.ctx);
	nanosleep(&ten_ms, NULL);
	deadline = mono_ns() + 5000000000ull;
	while (!moved && mono_ns() < deadline) {
		moved = mlx4dv_ts_to_ns(read_clock(e.ctx) - c0, KHZ) >= 10000000u;
		if (!moved)
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	assert_true(moved);
	emu_env_close(&e);
}

struct ts_pair {
	struct emu_env e;
	struct ibv_cq_ex *cq_a, *cq_b;	/* a: sends, b: receives */
	struct ibv_qp *a, *b;
	struct ibv_mr *mr;
	uint8_t buf[8192];
	struct mlx4dv_cq dv_a, dv_b;
	uint32_t seen_a, seen_b;	/* CQEs consumed */
};

static struct ibv_cq_ex *ts_cq(struct emu_env *e)
{
	struct ibv_cq_init_attr_ex a;
	struct ibv_cq_ex *cq;

	memset(&a, 0, sizeof(a));
	a.cqe = 2 * NSENDS;
	a.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM |
		     IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	cq = ibv_create_cq_ex(e->ctx, &a);
	assert_non_null(cq);
	return cq;
}

static struct ibv_qp *rc_qp(struct ts_pair *p, struct ibv_cq_ex *cq)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.send_cq = a.recv_cq = ibv_cq_ex_to_cq(cq);
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = a.cap.max_recv_wr = NSENDS;
	a.cap.max_send_sge = a.cap.max_recv_sge = 1;
	qp = ibv_create_qp(p->e.pd, &a);
	assert_non_null(qp);
	return qp;
}

static void dv_cq(struct ibv_cq_ex *cq, struct mlx4dv_cq *out)
{
	struct mlx4dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	obj.cq.in = ibv_cq_ex_to_cq(cq);
	obj.cq.out = out;
	assert_int_equal(mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ), 0);
}

static int pair_setup(void **state)
{
	struct ts_pair *p = calloc(1, sizeof(*p));

	assert_non_null(p);
	emu_env_open(&p->e, 1);
	p->cq_a = ts_cq(&p->e);
	p->cq_b = ts_cq(&p->e);
	p->a = rc_qp(p, p->cq_a);
	p->b = rc_qp(p, p->cq_b);
	emu_qp_to_rts(&p->e, p->a, p->b->qp_num, 0);
	emu_qp_to_rts(&p->e, p->b, p->a->qp_num, 0);
	p->mr = ibv_reg_mr(p->e.pd, p->buf, sizeof(p->buf), IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(p->mr);
	dv_cq(p->cq_a, &p->dv_a);
	dv_cq(p->cq_b, &p->dv_b);
	*state = p;
	return 0;
}

static int pair_teardown(void **state)
{
	struct ts_pair *p = *state;

	assert_int_equal(ibv_destroy_qp(p->a), 0);
	assert_int_equal(ibv_destroy_qp(p->b), 0);
	assert_int_equal(ibv_destroy_cq(ibv_cq_ex_to_cq(p->cq_a)), 0);
	assert_int_equal(ibv_destroy_cq(ibv_cq_ex_to_cq(p->cq_b)), 0);
	assert_int_equal(ibv_dereg_mr(p->mr), 0);
	emu_env_close(&p->e);
	free(p);
	return 0;
}

/* The valid 32 bytes of CQE n of a CQ (64-byte CQEs: the second half). */
static const struct mlx4_cqe *cqe_at(const struct mlx4dv_cq *cq, uint32_t n)
{
	size_t end = ((size_t)(n & (cq->cqe_cnt - 1)) + 1) * cq->cqe_size;

	return (const struct mlx4_cqe *)((const uint8_t *)cq->buf.buf + end -
					 sizeof(struct mlx4_cqe));
}

/*
 * Polls one completion with the extended API; returns its stamp after
 * checking that the header's decode of the CQE bytes agrees with libmlx4.
 */
static uint64_t poll_stamp(struct ibv_cq_ex *cq, const struct mlx4dv_cq *dv,
			   uint32_t *seen)
{
	struct ibv_poll_cq_attr attr = { 0 };
	uint64_t deadline = mono_ns() + 5000000000ull, ts;
	int r;

	while ((r = ibv_start_poll(cq, &attr)) == ENOENT) {
		assert_true(mono_ns() < deadline);
		sched_yield();
	}
	assert_int_equal(r, 0);
	assert_int_equal(cq->status, IBV_WC_SUCCESS);
	ts = ibv_wc_read_completion_ts(cq);
	assert_int_equal(mlx4dv_cqe_timestamp(cqe_at(dv, *seen)), ts);
	assert_true(ts <= MLX4DV_CQE_TIMESTAMP_MASK);
	(*seen)++;
	ibv_end_poll(cq);
	return ts;
}

static void post_one(struct ts_pair *p, uint32_t i)
{
	struct ibv_sge rs = { (uintptr_t)p->buf + 4096, 64, p->mr->lkey };
	struct ibv_sge ss = { (uintptr_t)p->buf, 64, p->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &rs, .num_sge = 1 };
	struct ibv_send_wr swr = {
		.wr_id = i, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *sbad;

	assert_int_equal(ibv_post_recv(p->b, &rwr, &rbad), 0);
	assert_int_equal(ibv_post_send(p->a, &swr, &sbad), 0);
}

/*
 * Each stamp lies between the clock read before the post and the clock
 * read after the poll, stamps never go backwards on a CQ, and the
 * header's conversion of an interval is no longer than CLOCK_MONOTONIC's.
 */
static void test_cqe_stamps(void **state)
{
	struct ts_pair *p = *state;
	uint64_t prev_send = 0, prev_recv = 0, first = 0, last = 0;
	uint64_t t0 = mono_ns(), t1;

	for (uint32_t i = 0; i < NSENDS; i++) {
		uint64_t before = read_clock(p->e.ctx), ts_send, ts_recv, after;

		post_one(p, i);
		ts_send = poll_stamp(p->cq_a, &p->dv_a, &p->seen_a);
		ts_recv = poll_stamp(p->cq_b, &p->dv_b, &p->seen_b);
		after = read_clock(p->e.ctx);
		/* as full clock values, with the header's extension */
		assert_true(mlx4dv_ts_extend(ts_send, after) >= before);
		assert_true(mlx4dv_ts_extend(ts_send, after) <= after);
		assert_true(mlx4dv_ts_extend(ts_recv, after) >= before);
		assert_true(mlx4dv_ts_extend(ts_recv, after) <= after);
		/* and modulo 2^48 against the previous stamps */
		if (i) {
			assert_true(mlx4dv_ts_delta(ts_send, prev_send) <=
				    mlx4dv_ts_delta(after, prev_send));
			assert_true(mlx4dv_ts_delta(ts_recv, prev_recv) <=
				    mlx4dv_ts_delta(after, prev_recv));
		} else {
			first = mlx4dv_ts_extend(ts_send, after);
		}
		prev_send = ts_send;
		prev_recv = ts_recv;
		last = mlx4dv_ts_extend(ts_recv, after);
	}
	t1 = mono_ns();
	assert_true(mlx4dv_ts_to_ns(last - first, KHZ) <= t1 - t0);
}

/* A CQ without timestamps keeps SLID in the same bytes. */
static void test_plain_cq_keeps_slid(void **state)
{
	struct emu_env e;
	struct emu_qp a, b;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	(void)state;
	emu_env_open(&e, 1);
	emu_qp_create(&e, &a, IBV_QPT_RC, 4, 4, 16, 4096, NULL);
	emu_qp_create(&e, &b, IBV_QPT_RC, 4, 4, 16, 4096, NULL);
	emu_qp_to_rts(&e, a.qp, b.qp->qp_num, 0);
	emu_qp_to_rts(&e, b.qp, a.qp->qp_num, 0);
	emu_post_recv(b.qp, 1, b.buf, 64, b.mr->lkey);
	sge = (struct ibv_sge){ (uintptr_t)a.buf, 64, a.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	assert_int_equal(emu_post_send(a.qp, &wr), 0);
	emu_poll_one(a.scq, IBV_WC_SUCCESS);
	wc = emu_poll_one(b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.slid, e.port_attr.lid);
	assert_int_equal(wc.sl, 0);
	emu_qp_destroy(&a);
	emu_qp_destroy(&b);
	emu_env_close(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_attributes),
		cmocka_unit_test(test_clock_page),
		cmocka_unit_test(test_clock_runs_while_idle),
		cmocka_unit_test_setup_teardown(test_cqe_stamps, pair_setup,
						pair_teardown),
		cmocka_unit_test(test_plain_cq_keeps_slid),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
