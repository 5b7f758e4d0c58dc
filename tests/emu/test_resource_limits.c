// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The adapter's resource limits (emu/docs/attributes.md): every kind of
 * object can be created up to the number the device reports, the next one
 * fails with the errno mlx4 returns (ENOMEM), and one freed makes room for
 * one more.  Run with the default limits of a ConnectX-3.
 */
#include "emu_test.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "test_exit.h"

/* Contexts: 894 UARs for programs; each context holds four descriptors. */
#define CONTEXTS 894

static struct ibv_device *device(struct ibv_device ***list)
{
	*list = ibv_get_device_list(NULL);
	assert_non_null(*list);
	assert_non_null((*list)[0]);
	return (*list)[0];
}

static void test_contexts(void **state)
{
	struct ibv_context **ctx = calloc(CONTEXTS, sizeof(*ctx));
	struct ibv_device **list;
	struct ibv_device *dev = device(&list);
	struct rlimit rl;

	(void)state;
	assert_non_null(ctx);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 4 * CONTEXTS + 64)
		t_skip_case("the hard limit of open files is too low");
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 8192 ? 8192 : rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	for (int i = 0; i < CONTEXTS; i++) {
		ctx[i] = ibv_open_device(dev);
		if (!ctx[i])
			fail_msg("context %d: %s", i, strerror(errno));
	}
	errno = 0;
	assert_null(ibv_open_device(dev));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(ibv_close_device(ctx[CONTEXTS / 2]), 0);
	ctx[CONTEXTS / 2] = ibv_open_device(dev);
	assert_non_null(ctx[CONTEXTS / 2]);
	for (int i = 0; i < CONTEXTS; i++)
		assert_int_equal(ibv_close_device(ctx[i]), 0);
	ibv_free_device_list(list);
	free(ctx);
}

/* A context of its own with a PD: the objects a test fills the adapter
 * with are released by closing it, as the kernel releases them. */
static struct ibv_context *open_ctx(struct ibv_pd **pd, struct ibv_device_attr *attr)
{
	struct ibv_device **list;
	struct ibv_context *ctx = ibv_open_device(device(&list));

	assert_non_null(ctx);
	ibv_free_device_list(list);
	assert_int_equal(ibv_query_device(ctx, attr), 0);
	*pd = ibv_alloc_pd(ctx);
	assert_non_null(*pd);
	return ctx;
}

static void test_pds(void **state)
{
	struct ibv_device_attr attr;
	struct ibv_pd *pd, *last = NULL;
	struct ibv_context *ctx = open_ctx(&pd, &attr);

	(void)state;
	assert_int_equal(attr.max_pd, 32764);
	for (int i = 1; i < attr.max_pd; i++) {
		last = ibv_alloc_pd(ctx);
		if (!last)
			fail_msg("PD %d: %s", i, strerror(errno));
	}
	errno = 0;
	assert_null(ibv_alloc_pd(ctx));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(ibv_dealloc_pd(last), 0);
	assert_non_null(ibv_alloc_pd(ctx));
	assert_int_equal(ibv_close_device(ctx), 0);
}

static void test_cqs(void **state)
{
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_context *ctx = open_ctx(&pd, &attr);
	struct ibv_cq *cq = NULL;

	(void)state;
	assert_int_equal(attr.max_cq, 65408);
	for (int i = 0; i < attr.max_cq; i++) {
		cq = ibv_create_cq(ctx, 1, NULL, NULL, 0);
		if (!cq)
			fail_msg("CQ %d: %s", i, strerror(errno));
	}
	errno = 0;
	assert_null(ibv_create_cq(ctx, 1, NULL, NULL, 0));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	assert_non_null(ibv_create_cq(ctx, 1, NULL, NULL, 0));
	assert_int_equal(ibv_close_device(ctx), 0);
}

static void test_srqs(void **state)
{
	struct ibv_srq_init_attr ia = { .attr = { .max_wr = 1, .max_sge = 1 } };
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_context *ctx = open_ctx(&pd, &attr);
	struct ibv_srq *srq = NULL;

	(void)state;
	assert_int_equal(attr.max_srq, 65472);
	for (int i = 0; i < attr.max_srq; i++) {
		srq = ibv_create_srq(pd, &ia);
		if (!srq)
			fail_msg("SRQ %d: %s", i, strerror(errno));
	}
	errno = 0;
	assert_null(ibv_create_srq(pd, &ia));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(ibv_destroy_srq(srq), 0);
	assert_non_null(ibv_create_srq(pd, &ia));
	assert_int_equal(ibv_close_device(ctx), 0);
}

/* MRs and memory windows share the MPT table. */
static void test_mrs(void **state)
{
	static uint8_t buf[64];
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_context *ctx = open_ctx(&pd, &attr);
	struct ibv_mr *mr = NULL;
	struct ibv_mw *mw;

	(void)state;
	assert_int_equal(attr.max_mr, 524032);
	for (int i = 1; i < attr.max_mr; i++) {
		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			fail_msg("MR %d: %s", i, strerror(errno));
	}
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	assert_non_null(mw);
	errno = 0;
	assert_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, ENOMEM);
	errno = 0;
	assert_null(ibv_alloc_mw(pd, IBV_MW_TYPE_2));
	assert_int_equal(errno, ENOMEM);
	assert_int_equal(ibv_dealloc_mw(mw), 0);
	assert_non_null(ibv_alloc_mw(pd, IBV_MW_TYPE_2));
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_non_null(ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(ibv_close_device(ctx), 0);
}

/* argv[1] names the one test to run (each is its own ctest entry, so that
 * they run side by side); none runs them all. */
int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contexts),
		cmocka_unit_test(test_pds),
		cmocka_unit_test(test_cqs),
		cmocka_unit_test(test_srqs),
		cmocka_unit_test(test_mrs),
	};
	char filter[64];

	if (argc > 1) {
		snprintf(filter, sizeof(filter), "test_%s", argv[1]);
		cmocka_set_test_filter(filter);
	}
	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
