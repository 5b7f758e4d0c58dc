// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Inputs that once gave a wrong result without an error: each now gets
 * its documented errno with nothing written (docs/errors.md), or, where a
 * test would cost a walk on every call, a documented precondition that a
 * build with MLX4DV_DEBUG asserts. This file is such a build, with the
 * header's assertion routed to cmocka so that a violation is observed
 * instead of aborting. Host memory plays the device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define MLX4DV_DEBUG 1
#define MLX4DV_ASSERT(cond) mock_assert(!!(cond), #cond, __FILE__, __LINE__)
#include <infiniband/mlx4dv.h>

#include "host_rings.h"
#include "test_exit.h"

struct frozen {
	struct host_sq h;
	uint8_t *snap;
	uint32_t head;
};

static void frozen_open(struct frozen *f, uint32_t qp_type)
{
	memset(f, 0, sizeof(*f));
	host_sq_init(&f->h, 64, 6, qp_type, 0);
	f->h.sq.max_gather = 3;
	f->h.sq.max_inline = 100;
	mlx4dv_sq_fast_path_init(&f->h.sq);
	f->snap = malloc(f->h.mem_len);
	assert_non_null(f->snap);
	memcpy(f->snap, f->h.mem, f->h.mem_len);
	f->head = f->h.sq.head;
}

static void assert_untouched(const struct frozen *f)
{
	assert_memory_equal(f->snap, f->h.mem, f->h.mem_len);
	assert_int_equal(f->h.sq.head, f->head);
}

static void frozen_close(struct frozen *f)
{
	free(f->snap);
	host_sq_free(&f->h);
}

static uint8_t buf[256];

/*
 * 2^31 would be stored as the zero-length marker (0 bytes move), 2^31 + 1
 * as an inline segment of 1 byte: both refused, through every entry
 * point that takes a gather length.
 */
static void test_sge_length_2g(void **state)
{
	static const uint32_t lengths[] = { 0x80000000u, 0x80000001u, 0xffffffffu };
	struct mlx4dv_sq_wqe_template t;
	struct ibv_send_wr wr;
	struct frozen f;

	(void)state;
	frozen_open(&f, IBV_QPT_RC);
	for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
		struct ibv_sge sg[2] = { { (uintptr_t)buf, 8, 1 },
					 { (uintptr_t)buf, lengths[i], 1 } };

		assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, &sg[1], 1, 0), EINVAL);
		assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg, 2, 0), EINVAL);
		assert_int_equal(mlx4dv_sq_write_rdma_write(&f.h.sq, 0, 5, 0x1000, &sg[1], 1,
						      IBV_SEND_SIGNALED), EINVAL);
		assert_int_equal(mlx4dv_sq_write_rdma_read(&f.h.sq, 0, 5, 0x1000, sg, 2, 0),
				 EINVAL);
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.sg_list = sg;
		wr.num_sge = 2;
		assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, &wr, NULL), EINVAL);
		assert_int_equal(mlx4dv_sq_wqe_template_init(&t, &f.h.sq,
			IBV_WR_RDMA_WRITE, 5, 1, lengths[i], 0, 0), EINVAL);
		assert_untouched(&f);
	}
	/* The longest length a segment holds still goes. */
	{
		struct ibv_sge sg = { (uintptr_t)buf, 0x7fffffffu, 1 };

		assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, &sg, 1, 0), 0);
		assert_int_equal(rd_be32(f.h.mem + 16), 0x7fffffffu);
	}
	frozen_close(&f);
}

/* The UD and raw Ethernet posts take the same rule. */
static void test_sge_length_2g_ud_eth(void **state)
{
	struct ibv_sge sg[2] = { { (uintptr_t)buf, 64, 1 },
				 { (uintptr_t)buf, 0x80000000u, 1 } };
	struct mlx4dv_ud_av dest;
	struct frozen f;

	(void)state;
	memset(&dest, 0, sizeof(dest));
	frozen_open(&f, IBV_QPT_UD);
	assert_int_equal(mlx4dv_sq_write_ud_send(&f.h.sq, 0, &dest, 1, 2, &sg[1], 1, 0),
			 EINVAL);
	assert_untouched(&f);
	frozen_close(&f);
	frozen_open(&f, IBV_QPT_RAW_PACKET);
	assert_int_equal(mlx4dv_sq_write_eth(&f.h.sq, 0, sg, 2, 0, 0), EINVAL);
	assert_untouched(&f);
	frozen_close(&f);
}

/* Bytes to copy inline from a NULL address: EINVAL, not a SIGSEGV. */
static void test_inline_entry_null_address(void **state)
{
	struct ibv_sge sg[2] = { { (uintptr_t)buf, 8, 0 }, { 0, 8, 0 } };
	struct ibv_send_wr wr;
	struct frozen f;

	(void)state;
	frozen_open(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg, 2, IBV_SEND_INLINE), EINVAL);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&f.h.sq, 0, 5, 0x1000, &sg[1], 1,
					      IBV_SEND_INLINE), EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	wr.sg_list = sg;
	wr.num_sge = 2;
	assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, &wr, NULL), EINVAL);
	assert_untouched(&f);
	/* An empty entry may have no address (nothing is read). */
	sg[1].length = 0;
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, sg, 2, IBV_SEND_INLINE), 0);
	frozen_close(&f);
}

/* sg == NULL with entries and IBV_SEND_INLINE once sent an empty message. */
static void test_inline_null_list_with_entries(void **state)
{
	struct ibv_send_wr wr;
	struct frozen f;

	(void)state;
	frozen_open(&f, IBV_QPT_RC);
	assert_int_equal(mlx4dv_sq_write_send(&f.h.sq, 0, NULL, 3, IBV_SEND_INLINE),
			 EINVAL);
	assert_int_equal(mlx4dv_sq_write_send_imm(&f.h.sq, 0, NULL, 3, IBV_SEND_INLINE,
						 0), EINVAL);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&f.h.sq, 0, 5, 0x1000, NULL, 3,
					      IBV_SEND_INLINE), EINVAL);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	wr.num_sge = 3;
	assert_int_equal(mlx4dv_sq_write_send_wr(&f.h.sq, &wr, NULL), EINVAL);
	assert_untouched(&f);
	frozen_close(&f);
	frozen_open(&f, IBV_QPT_UD);
	{
		struct mlx4dv_ud_av dest;

		memset(&dest, 0, sizeof(dest));
		assert_int_equal(mlx4dv_sq_write_ud_send(&f.h.sq, 0, &dest, 1, 2, NULL,
							3, IBV_SEND_INLINE), EINVAL);
	}
	assert_untouched(&f);
	frozen_close(&f);
}

/* A request with entries but no list is no BlueFlame candidate (the
 * check read sg_list[0] and faulted). */
static void test_bf_candidate_null_list(void **state)
{
	struct ibv_send_wr wr;
	struct frozen f;

	(void)state;
	frozen_open(&f, IBV_QPT_RC);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	wr.num_sge = 2;
	assert_int_equal(mlx4dv_send_wr_bf_candidate(&f.h.sq, &wr), 0);
	wr.send_flags = 0;
	wr.opcode = IBV_WR_RDMA_READ;
	assert_int_equal(mlx4dv_send_wr_bf_candidate(&f.h.sq, &wr), 0);
	frozen_close(&f);
}

/* Debug-build precondition of the segment builder. */
static void test_data_seg_length_asserted(void **state)
{
	struct mlx4_wqe_data_seg seg;

	(void)state;
	expect_assert_failure(mlx4dv_wqe_set_data_seg(&seg, 0x80000000u, 1, 2));
	mlx4dv_wqe_set_data_seg(&seg, 0x7fffffffu, 1, 2);
	assert_int_equal(rd_be32(&seg.byte_count), 0x7fffffffu);
}

static const struct ibv_sge one = { 0x1000, 8, 1 };

/*
 * Releasing an SRQ WQE that is free (never posted, or released already)
 * linked it into the list a second time: the list then loops and two
 * receives share one WQE. A debug build stops there.
 */
static void test_srq_release_of_free_index(void **state)
{
	struct host_srq s;
	uint32_t posted, free_idx;

	(void)state;
	host_srq_init(&s, 16, 6);
	posted = s.srq.head;
	assert_int_equal(mlx4dv_srq_post(&s.srq, 1, &one, 1), 0);
	/* head now names a free WQE that is not the tail */
	free_idx = s.srq.head;
	assert_int_not_equal(free_idx, s.srq.tail);
	assert_true(mlx4dv_srq_wqe_is_free(&s.srq, free_idx));
	assert_false(mlx4dv_srq_wqe_is_free(&s.srq, posted));
	expect_assert_failure(mlx4dv_srq_free_wqe(&s.srq, free_idx));
	/* the posted one goes back; then it is free and may not again */
	assert_int_equal(mlx4dv_srq_free_wqe(&s.srq, posted), 0);
	assert_true(mlx4dv_srq_wqe_is_free(&s.srq, posted));
	assert_int_equal(mlx4dv_srq_free_wqe(&s.srq, posted), EINVAL);	/* tail */
	host_srq_free(&s);
}

/* Every free WQE of a fresh SRQ, and none once all but one are posted. */
static void test_srq_index_is_free_walk(void **state)
{
	struct host_srq s;
	uint32_t i;

	(void)state;
	host_srq_init(&s, 8, 6);
	for (i = 0; i < 8; i++)
		assert_true(mlx4dv_srq_wqe_is_free(&s.srq, i));
	for (i = 0; i < 7; i++)
		assert_int_equal(mlx4dv_srq_post(&s.srq, i, &one, 1), 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(mlx4dv_srq_wqe_is_free(&s.srq, i),
				 i == s.srq.tail);
	host_srq_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sge_length_2g),
		cmocka_unit_test(test_sge_length_2g_ud_eth),
		cmocka_unit_test(test_inline_entry_null_address),
		cmocka_unit_test(test_inline_null_list_with_entries),
		cmocka_unit_test(test_bf_candidate_null_list),
		cmocka_unit_test(test_data_seg_length_asserted),
		cmocka_unit_test(test_srq_release_of_free_index),
		cmocka_unit_test(test_srq_index_is_free_walk),
	};

	t_run_group_tests_name("reliability_silent_misuse", tests, NULL, NULL);
	return t_exit();
}
