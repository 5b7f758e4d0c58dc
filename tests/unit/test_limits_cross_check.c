// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * mlx4dv_sq_ring_init() recomputes the send limits with libmlx4 44.0's
 * arithmetic and checks them against what libmlx4 answers in
 * ibv_query_qp(): a libmlx4 whose arithmetic differs must be refused
 * (ENOTSUP), not driven with wrong limits. This program defines
 * ibv_query_qp() itself (the executable comes first in symbol lookup, so
 * libmlx4dv's call lands here), forwards to libibverbs and then makes one
 * reported limit differ by one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "unit_device.h"
#include "test_exit.h"

enum skew { SKEW_NONE, SKEW_SEND_WR, SKEW_SEND_SGE, SKEW_INLINE, SKEW_FAIL };

static enum skew g_skew;
static unsigned g_queries;

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	int (*real)(struct ibv_qp *, struct ibv_qp_attr *, int,
		    struct ibv_qp_init_attr *);
	void *sym = dlsym(RTLD_NEXT, "ibv_query_qp");
	int ret;

	g_queries++;
	if (!sym)
		return ENOSYS;
	memcpy(&real, &sym, sizeof(real));
	if (g_skew == SKEW_FAIL)
		return EIO;
	ret = real(qp, attr, attr_mask, init_attr);
	if (ret)
		return ret;
	switch (g_skew) {
	case SKEW_SEND_WR:
		init_attr->cap.max_send_wr++;
		attr->cap.max_send_wr++;
		break;
	case SKEW_SEND_SGE:
		init_attr->cap.max_send_sge++;
		attr->cap.max_send_sge++;
		break;
	case SKEW_INLINE:
		init_attr->cap.max_inline_data++;
		attr->cap.max_inline_data++;
		break;
	default:
		break;
	}
	return 0;
}

static void ring_init_with(enum skew skew, int want, int *stamped)
{
	struct ibv_qp_cap cap = { .max_send_wr = 64, .max_recv_wr = 16,
				  .max_send_sge = 3, .max_recv_sge = 1,
				  .max_inline_data = 100 };
	struct unit_dev *d = unit_dev_open();
	struct mlx4dv_sq_ring sq;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	assert_non_null(d);
	cq = ibv_create_cq(d->ctx, 64, NULL, NULL, 0);
	assert_non_null(cq);
	qp = unit_qp_create(d, IBV_QPT_RC, cq, cq, NULL, &cap);
	assert_non_null(qp);
	g_skew = skew;
	g_queries = 0;
	assert_int_equal(mlx4dv_sq_ring_init(&sq, qp, 0), want);
	g_skew = SKEW_NONE;
	/* the limits were asked for, not assumed */
	assert_true(g_queries >= 1);
	if (!want) {
		*stamped = (int)sq.ring_stamped;
		mlx4dv_sq_ring_release(&sq);
	}
	assert_int_equal(ibv_destroy_qp(qp), 0);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	unit_dev_close(d);
}

static void test_agreeing_limits(void **state)
{
	int stamped = -1;

	(void)state;
	ring_init_with(SKEW_NONE, 0, &stamped);
	/* a QP in RESET will be stamped by libmlx4 before its first post */
	assert_int_equal(stamped, 1);
}

/* Each limit on its own, so that no comparison can be left out unseen. */
static void test_each_differing_limit_refused(void **state)
{
	(void)state;
	ring_init_with(SKEW_SEND_WR, ENOTSUP, NULL);
	ring_init_with(SKEW_SEND_SGE, ENOTSUP, NULL);
	ring_init_with(SKEW_INLINE, ENOTSUP, NULL);
}

/* A query that fails leaves the computed limits standing, and the ring's
 * stamps unknown (0: the posts stamp). */
static void test_unanswered_query(void **state)
{
	int stamped = -1;

	(void)state;
	ring_init_with(SKEW_FAIL, 0, &stamped);
	assert_int_equal(stamped, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agreeing_limits),
		cmocka_unit_test(test_each_differing_limit_refused),
		cmocka_unit_test(test_unanswered_query),
	};

	t_run_group_tests_name("unit_limits_cross_check", tests, NULL, NULL);
	return t_exit();
}
