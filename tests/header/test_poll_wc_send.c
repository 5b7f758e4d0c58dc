/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv_cq_poll_wc() takes a good send CQE of a one-WQEBB SQ by its own
 * short path (the accounting of mlx4dv_cq_poll_sq(), the ibv_wc fields
 * from a table). Every send opcode below the error opcode, with and
 * without a wrid table, must give the ibv_wc mlx4dv_cqe_to_wc() gives
 * (the general path's, taken when the SQ has WQEs of several WQEBBs), byte
 * for byte; the CQEs it leaves to the general path are refused as
 * before. Host memory plays the device (tests/reliability/host_rings).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#include "host_rings.h"
#include "test_exit.h"

static uint8_t payload[64];

/* One signaled RDMA write on h, its CQE (opcode op, byte count 0x1234)
 * pushed, polled by mlx4dv_cq_poll_wc() into *wc (filled with 0xab
 * first). */
static int poll_one(struct host_sq *h, struct host_cq *c, uint32_t qpn,
		    uint8_t op, uint16_t wqe_index, struct ibv_wc *wc,
		    struct mlx4_cqe *body, uint32_t *polled)
{
	struct mlx4dv_poll_qp e = { 0x4a, 0, &h->sq, NULL, NULL };

	*body = cqe_send(qpn, op, wqe_index);
	body->byte_cnt = mlx4dv_cpu_to_be32(0x1234);
	host_cq_push(c, body);
	memset(wc, 0xab, sizeof(*wc));
	return mlx4dv_cq_poll_wc(&c->cq, &e, 1, 1, wc, polled);
}

static void every_send_opcode_as_to_wc(void **state)
{
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	uint32_t op, with_table, single;

	(void)state;
	for (single = 0; single < 2; single++)
	for (with_table = 0; with_table < 2; with_table++)
	for (op = 0; op < MLX4_CQE_OPCODE_ERROR; op++) {
		struct ibv_wc wc, want;
		struct mlx4_cqe body;
		struct host_cq c;
		struct host_sq h;
		uint32_t polled = 0;

		host_cq_init(&c, 8, 32, 0);
		host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
		if (!with_table)
			h.sq.wrid = NULL;
		mlx4dv_sq_fast_path_update(&h.sq);
		assert_int_equal(mlx4dv_sq_write_rdma_write(&h.sq, 0x77, 0x1111,
							    0x9000, &sge, 1,
							    IBV_SEND_SIGNALED), 0);
		h.sq.single_wqebb = single;
		assert_int_equal(poll_one(&h, &c, 0x4a, (uint8_t)op, 0, &wc,
					  &body, &polled), 0);
		assert_int_equal(polled, 1);
		memset(&want, 0xab, sizeof(want));
		mlx4dv_cqe_to_wc(&body, 0, &want);
		want.wr_id = with_table ? 0x77 : 0;
		if (memcmp(&wc, &want, sizeof(wc)))
			fail_msg("opcode 0x%x, table %u, single %u: wc opcode %d "
				 "(want %d), flags 0x%x (0x%x), byte_len 0x%x "
				 "(0x%x), wr_id 0x%llx (0x%llx)", op, with_table,
				 single, wc.opcode, want.opcode, wc.wc_flags,
				 want.wc_flags, wc.byte_len, want.byte_len,
				 (unsigned long long)wc.wr_id,
				 (unsigned long long)want.wr_id);
		assert_int_equal(h.sq.tail, 1);
		assert_int_equal(c.cq.cons_index, 1);
		host_sq_free(&h);
		host_cq_free(&c);
	}
}

/* What the short path leaves to the general one is refused as before: a
 * CQE of a QPN no entry has (EINVAL), a wqe_index naming no outstanding
 * WQE (ERANGE), a handle whose qpn is not the entry's (EINVAL); each such
 * first CQE is consumed, the SQ left as it was. */
static void refusals_unchanged(void **state)
{
	struct ibv_sge sge = { (uintptr_t)payload, sizeof(payload), 0x2222 };
	struct mlx4_cqe body;
	struct ibv_wc wc;
	struct host_cq c;
	struct host_sq h;
	uint32_t polled = 7;

	(void)state;
	host_cq_init(&c, 8, 32, 0);
	host_sq_init(&h, 64, 6, IBV_QPT_RC, 0);
	mlx4dv_sq_fast_path_update(&h.sq);
	assert_int_equal(mlx4dv_sq_write_rdma_write(&h.sq, 0x77, 0x1111, 0x9000,
						    &sge, 1, IBV_SEND_SIGNALED), 0);
	assert_int_equal(poll_one(&h, &c, 0x4b, MLX4_OPCODE_RDMA_WRITE, 0, &wc,
				  &body, &polled), EINVAL);
	assert_int_equal(polled, 0);
	assert_int_equal(poll_one(&h, &c, 0x4a, MLX4_OPCODE_RDMA_WRITE, 1, &wc,
				  &body, &polled), ERANGE);
	h.sq.qpn = 0x4c;
	assert_int_equal(poll_one(&h, &c, 0x4a, MLX4_OPCODE_RDMA_WRITE, 0, &wc,
				  &body, &polled), EINVAL);
	assert_int_equal(c.cq.cons_index, 3);
	assert_int_equal(h.sq.tail, 0);
	h.sq.qpn = 0x4a;
	assert_int_equal(poll_one(&h, &c, 0x4a, MLX4_OPCODE_RDMA_WRITE, 0, &wc,
				  &body, &polled), 0);
	assert_int_equal(wc.wr_id, 0x77);
	assert_int_equal(h.sq.tail, 1);
	host_sq_free(&h);
	host_cq_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_send_opcode_as_to_wc),
		cmocka_unit_test(refusals_unchanged),
	};

	t_run_group_tests_name("header_poll_wc_send", tests, NULL, NULL);
	return t_exit();
}
