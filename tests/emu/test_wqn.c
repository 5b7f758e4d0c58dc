// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Receive WQ numbers and the range hint (run with --link-layer=eth):
 * mlx4dv_set_context_attr(MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ) makes the
 * next WQ open a range of 2^n consecutive numbers aligned to 2^n, which
 * the following WQs fill; an indirection table takes only such numbers.
 * The rules are mlx4_ib's (mlx4_ib_alloc_wqn, mlx4_ib_create_rwq_ind_table).
 */
#include "emu_test.h"

#include <errno.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#include "test_exit.h"
#pragma GCC diagnostic pop

struct wqn {
	struct emu_env e;
	struct ibv_cq *cq;
};

static int setup(void **state)
{
	struct wqn *t = calloc(1, sizeof(*t));

	emu_env_open(&t->e, 1);
	if (t->e.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		print_message("WQ tests need --link-layer=eth\n");
		return -1;
	}
	t->cq = ibv_create_cq(t->e.ctx, 64, NULL, NULL, 0);
	assert_non_null(t->cq);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct wqn *t = *state;

	assert_int_equal(ibv_destroy_cq(t->cq), 0);
	emu_env_close(&t->e);
	free(t);
	return 0;
}

static void hint(struct wqn *t, uint8_t log)
{
	assert_int_equal(mlx4dv_set_context_attr(t->e.ctx, MLX4DV_SET_CTX_ATTR_LOG_WQS_RANGE_SZ,
						 &log), 0);
}

static struct ibv_wq *wq_new(struct wqn *t)
{
	struct ibv_wq_init_attr a = { .wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
				      .pd = t->e.pd, .cq = t->cq };

	return ibv_create_wq(t->e.ctx, &a);
}

static int table_errno(struct wqn *t, struct ibv_wq **wq, uint32_t log)
{
	struct ibv_rwq_ind_table_init_attr a = { .log_ind_tbl_size = log, .ind_tbl = wq };
	struct ibv_rwq_ind_table *tbl;

	errno = 0;
	tbl = ibv_create_rwq_ind_table(t->e.ctx, &a);
	if (!tbl)
		return errno;
	assert_int_equal(ibv_destroy_rwq_ind_table(tbl), 0);
	return 0;
}

static struct ibv_qp *raw_qp(struct wqn *t)
{
	struct ibv_qp_init_attr a = { .send_cq = t->cq, .recv_cq = t->cq,
				      .cap = { .max_send_wr = 1, .max_recv_wr = 1,
					       .max_send_sge = 1, .max_recv_sge = 1 },
				      .qp_type = IBV_QPT_RAW_PACKET };
	struct ibv_qp *qp = ibv_create_qp(t->e.pd, &a);

	assert_non_null(qp);
	return qp;
}

/* A range of 8: consecutive, aligned, not broken by QPs created between;
 * the indirection tables over it and over its aligned halves work. */
static void test_range(void **state)
{
	struct wqn *t = *state;
	struct ibv_wq *wq[8], *next;
	struct ibv_qp *qp[3];
	uint32_t base;

	hint(t, 3);
	wq[0] = wq_new(t);
	assert_non_null(wq[0]);
	base = wq[0]->wq_num;
	assert_int_equal(base % 8, 0);
	for (int i = 0; i < 3; i++) {
		qp[i] = raw_qp(t);
		assert_false(qp[i]->qp_num >= base && qp[i]->qp_num < base + 8);
	}
	for (int i = 1; i < 8; i++) {
		wq[i] = wq_new(t);
		assert_non_null(wq[i]);
		assert_int_equal(wq[i]->wq_num, base + (uint32_t)i);
	}
	assert_int_equal(table_errno(t, wq, 3), 0);
	assert_int_equal(table_errno(t, wq + 4, 2), 0);
	assert_int_equal(table_errno(t, wq + 6, 1), 0);
	/* not aligned to the table size, not consecutive */
	assert_int_equal(table_errno(t, wq + 2, 2), EINVAL);
	assert_int_equal(table_errno(t, wq + 1, 1), EINVAL);
	assert_int_equal(table_errno(t, (struct ibv_wq *[]){ wq[1], wq[0] }, 1), EINVAL);
	/* the range is full: the next WQ opens one of its own */
	next = wq_new(t);
	assert_non_null(next);
	assert_false(next->wq_num >= base && next->wq_num < base + 8);
	assert_int_equal(ibv_destroy_wq(next), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(ibv_destroy_wq(wq[i]), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ibv_destroy_qp(qp[i]), 0);
}

/* A hint while a range is open fails; a range that lost a WQ hands out
 * no more numbers; a hint beyond the RSS table size is refused. */
static void test_range_rules(void **state)
{
	struct wqn *t = *state;
	struct ibv_wq *a, *b, *c;
	uint32_t base;

	hint(t, 2);
	a = wq_new(t);
	assert_non_null(a);
	base = a->wq_num;
	hint(t, 1);
	errno = 0;
	assert_null(wq_new(t));
	assert_int_equal(errno, EINVAL);
	hint(t, 0);
	b = wq_new(t);
	assert_non_null(b);
	assert_int_equal(b->wq_num, base + 1);
	assert_int_equal(ibv_destroy_wq(b), 0);
	c = wq_new(t);
	assert_non_null(c);
	assert_false(c->wq_num >= base && c->wq_num < base + 4);
	assert_int_equal(ibv_destroy_wq(c), 0);
	assert_int_equal(ibv_destroy_wq(a), 0);

	hint(t, 13);
	errno = 0;
	assert_null(wq_new(t));
	assert_int_equal(errno, EOPNOTSUPP);
	hint(t, 12);
	a = wq_new(t);
	assert_non_null(a);
	assert_int_equal(a->wq_num % 4096, 0);
	assert_int_equal(ibv_destroy_wq(a), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_range_rules, setup, teardown),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
