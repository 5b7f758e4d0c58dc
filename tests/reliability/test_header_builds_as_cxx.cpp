// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * test_header_builds_as_cxx: the data path used from C++ (not only the
 * header included): C++ rejects implicit void * conversions, designated
 * initialisers before C++20, anonymous structs under -Wpedantic and enum
 * arithmetic that C accepts. Builds the send WQEs, writes CQEs as a device
 * would and polls them back, in every C++ standard the project supports.
 */
#include <cstdarg>
#include <cstddef>
#include <csetjmp>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>
extern "C" {
#include <cmocka.h>
}

#include <infiniband/mlx4dv.h>
#include "../harness/wc_poll.h"
#include "test_exit.h"

namespace {

struct sq_memory {
	std::vector<uint8_t> ring;
	std::vector<uint64_t> wrid;
	__be32 doorbell;
	mlx4dv_sq_ring sq;

	sq_memory(uint32_t cnt, uint32_t shift, ibv_qp_type type)
		: ring(static_cast<size_t>(cnt) << shift), wrid(cnt), doorbell(0)
	{
		std::memset(&sq, 0, sizeof(sq));
		sq.buf = ring.data();
		sq.wqe_cnt = cnt;
		sq.wqe_shift = shift;
		sq.spare_wqes = (2048u >> shift) + 1;
		sq.max_post = cnt - sq.spare_wqes;
		sq.max_gather = 8;
		sq.max_inline = 400;
		sq.qpn = 0x99;
		sq.doorbell_qpn = mlx4dv_cpu_to_be32(0x99u << 8);
		sq.qp_type = type;
		sq.doorbell = &doorbell;
		sq.wrid = wrid.data();
		mlx4dv_sq_init_ownership(&sq);
	}
};

/* A CQE written the device's way: body, then the owner byte of the lap. */
void push_cqe(mlx4dv_cq_ring *cq, uint32_t pi, const mlx4_cqe &body)
{
	mlx4_cqe *slot = mlx4dv_cq_cqe(cq, pi);
	uint8_t owner = (pi & cq->cqe_cnt) ? 0x80 : 0;

	std::memcpy(slot, &body, sizeof(body) - 1);
	slot->owner_sr_opcode = static_cast<uint8_t>((body.owner_sr_opcode & 0x7f) | owner);
}

void test_header_builds_as_cxx(void **)
{
	sq_memory rc(64, 6, IBV_QPT_RC);
	std::vector<uint8_t> cqbuf(32 * 64);
	std::vector<uint8_t> payload(300, 0x5c);
	__be32 ci = 0, arm = 0;
	uint8_t uar[64] = {};
	mlx4dv_cq_ring cq;
	ibv_sge sg[2] = { { 0x1000, 100, 1 }, { 0x2000, 0, 2 } };
	ibv_send_wr wr;
	ibv_wc wc;
	uint32_t heads[4];

	std::memset(&cq, 0, sizeof(cq));
	cq.buf = cqbuf.data();
	cq.cqe_cnt = 32;
	cq.cqe_size = 64;
	cq.cqn = 3;
	cq.set_ci_db = &ci;
	cq.arm_db = &arm;
	cq.uar = uar;
	for (uint32_t i = 0; i < 32; i++)
		mlx4dv_cq_cqe(&cq, i)->owner_sr_opcode = 0x80;

	heads[0] = rc.sq.head;
	assert_int_equal(mlx4dv_sq_write_send(&rc.sq, 1, sg, 2, IBV_SEND_SIGNALED), 0);
	heads[1] = rc.sq.head;
	assert_int_equal(mlx4dv_sq_write_send_inline(&rc.sq, 2, payload.data(), 300,
						    IBV_SEND_SIGNALED), 0);
	heads[2] = rc.sq.head;
	std::memset(&wr, 0, sizeof(wr));
	wr.wr_id = 3;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = mlx4dv_cpu_to_be32(0xabcdef01u);
	wr.sg_list = sg;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = 0x8000;
	wr.wr.rdma.rkey = 0x44;
	assert_int_equal(mlx4dv_sq_write_send_wr(&rc.sq, &wr, nullptr), 0);
	heads[3] = rc.sq.head;
	assert_int_equal(mlx4dv_sq_ring_bf(&rc.sq, heads[2]), 0); /* no BF reg */

	/* first WQE: ds 3, zero-length entry encoded 0x80000000 */
	const mlx4_wqe_ctrl_seg *ctrl =
		reinterpret_cast<const mlx4_wqe_ctrl_seg *>(mlx4dv_sq_wqebb(&rc.sq, heads[0]));
	assert_int_equal(mlx4dv_wqe_ds(ctrl), 3);
	const mlx4_wqe_data_seg *d = reinterpret_cast<const mlx4_wqe_data_seg *>(ctrl + 1);
	assert_int_equal(mlx4dv_be32_to_cpu(d[1].byte_count), 0x80000000u);

	for (uint32_t i = 0; i < 3; i++) {
		mlx4_cqe e;

		std::memset(&e, 0, sizeof(e));
		e.vlan_my_qpn = mlx4dv_cpu_to_be32(0x99);
		e.wqe_index = mlx4dv_cpu_to_be16(static_cast<uint16_t>(heads[i]));
		unsigned op = i == 2 ? static_cast<unsigned>(MLX4_OPCODE_RDMA_WRITE_IMM) :
				       static_cast<unsigned>(MLX4_OPCODE_SEND);
		e.owner_sr_opcode = static_cast<uint8_t>(
			static_cast<unsigned>(MLX4_CQE_IS_SEND_MASK) | op);
		push_cqe(&cq, i, e);
	}
	mlx4dv_poll_qp pq = { 0x99, 0, &rc.sq, nullptr, nullptr };
	for (uint64_t i = 1; i <= 3; i++) {
		assert_int_equal(wc_poll_count(&cq, &pq, 1, 1, &wc), 1);
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.wr_id, i);
	}
	assert_int_equal(wc.opcode, IBV_WC_RDMA_WRITE);
	assert_int_equal(wc_poll_count(&cq, &pq, 1, 1, &wc), 0);
	assert_int_equal(mlx4dv_be32_to_cpu(ci), 3);
	mlx4dv_cq_arm(&cq, 1);
	assert_int_equal(mlx4dv_be32_to_cpu(arm) & 0xffffff, 3);
	assert_int_equal(rc.sq.tail, heads[2] + 1);
	(void)heads[3];
}

} // namespace

int main()
{
	const CMUnitTest tests[] = {
		cmocka_unit_test(test_header_builds_as_cxx),
	};

	t_run_group_tests_name("reliability_cxx", tests, nullptr, nullptr);
	return t_exit();
}
