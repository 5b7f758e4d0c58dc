// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_header_pedantic: the header under strict ISO C11 (no glibc
 * extensions, so no htobe32 and friends) with -pedantic-errors, and its
 * data path not only declared but compiled, linked and run: every kind of
 * post, the CQ poll and the receive rings. rdma-core's own mlx4dv.h fails
 * here (enumerators above INT_MAX, a zero-length array, glibc's hidden
 * byte-order functions).
 */
#ifndef __STRICT_ANSI__
#error "must be compiled in strict ISO mode (-std=c11)"
#endif
#if defined(_DEFAULT_SOURCE) || defined(_GNU_SOURCE) || defined(_BSD_SOURCE)
#error "must be compiled without feature macros"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#include "host_rings.h"
#include "../harness/wc_poll.h"
#include "test_exit.h"

static void test_header_pedantic(void **state)
{
	struct host_sq rc, ud, raw;
	struct host_cq c;
	struct host_srq s;
	struct mlx4dv_ud_av av;
	struct ibv_ah_attr ah;
	struct mlx4dv_lso_attr lso;
	struct mlx4dv_poll_qp pq;
	struct ibv_wc wc;
	struct ibv_sge sg = { 0x1000, 64, 5 };
	uint8_t frame[128];
	struct mlx4_cqe e;
	uint64_t id = 0;

	(void)state;
	memset(frame, 0xab, sizeof(frame));
	host_sq_init(&rc, 64, 6, IBV_QPT_RC, 0);
	host_sq_init(&ud, 64, 7, IBV_QPT_UD, 0);
	host_sq_init(&raw, 64, 7, IBV_QPT_RAW_PACKET, 0);
	host_cq_init(&c, 32, 64, 0);
	host_srq_init(&s, 16, 6);

	assert_int_equal(mlx4dv_sq_write_send(&rc.sq, 0, &sg, 1, IBV_SEND_SIGNALED), 0);
	assert_int_equal(mlx4dv_sq_write_rdma_write_imm_inline(&rc.sq, 0, 3, 0x10, frame,
							 40, 0, 0x11223344u), 0);
	assert_int_equal(mlx4dv_sq_write_cas(&rc.sq, 0, 4, 0x2000, 1, 2, &sg, 0), 0);
	assert_int_equal(mlx4dv_sq_write_faa(&rc.sq, 0, 4, 0x2008, 1, &sg, 0), 0);
	assert_int_equal(mlx4dv_sq_write_rdma_read(&rc.sq, 0, 4, 0x3000, &sg, 1, 0), 0);
	mlx4dv_sq_ring_doorbell(&rc.sq);
	assert_int_equal(rd_be32(&rc.doorbell), 0x4a << 8);

	memset(&ah, 0, sizeof(ah));
	ah.dlid = 7;
	ah.port_num = 1;
	assert_int_equal(mlx4dv_ud_av_init(&av, 3, &ah, NULL), 0);
	assert_int_equal(mlx4dv_sq_write_ud_send(&ud.sq, 0, &av, 0x55, 0x1111, &sg, 1, 0), 0);

	lso.header = frame;
	lso.header_size = 54;
	lso.mss = 1460;
	assert_int_equal(mlx4dv_sq_write_eth_lso(&raw.sq, 0, &lso, &sg, 1,
						IBV_SEND_IP_CSUM, 0), 0);
	assert_int_equal(mlx4dv_sq_write_eth_inline(&raw.sq, 0, frame, 60, 0, 0), 0);

	assert_int_equal(mlx4dv_srq_post(&s.srq, 77, &sg, 1), 0);
	e = cqe_recv(0x4a, MLX4_RECV_OPCODE_SEND, 64, 0);
	host_cq_push(&c, &e);
	assert_int_equal(mlx4dv_srq_complete(&s.srq, mlx4dv_cq_next(&c.cq), &id), 0);
	assert_int_equal(id, 77);
	mlx4dv_cq_update_ci(&c.cq);

	e = cqe_send(0x4a, MLX4_OPCODE_SEND, 0);
	host_cq_push(&c, &e);
	memset(&pq, 0, sizeof(pq));
	pq.qpn = 0x4a;
	pq.sq = &rc.sq;
	assert_int_equal(wc_poll_count(&c.cq, &pq, 1, 1, &wc), 1);
	assert_int_equal(wc.opcode, IBV_WC_SEND);
	mlx4dv_cq_arm(&c.cq, 0);

	host_srq_free(&s);
	host_cq_free(&c);
	host_sq_free(&raw);
	host_sq_free(&ud);
	host_sq_free(&rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_pedantic),
	};

	t_run_group_tests_name("reliability_pedantic", tests, NULL, NULL);
	return t_exit();
}
