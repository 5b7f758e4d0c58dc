// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// Every Part 5 function used once, so that compiling this file as C++11,
// C++14, C++17 and C++20 with -Wall -Wextra -Wpedantic -Werror checks
// their bodies (casts from void *, enum conversions), not only their
// declarations.
#include <infiniband/mlx4dv.h>

uint64_t completion_instantiate_all(mlx4dv_cq_ring *cq, mlx4dv_rq_ring *rq,
				    mlx4dv_srq_ring *srq, mlx4dv_sq_ring *sq,
				    ibv_wc *wc, const ibv_recv_wr *wr,
				    const ibv_sge *sg);

uint64_t completion_instantiate_all(mlx4dv_cq_ring *cq, mlx4dv_rq_ring *rq,
				    mlx4dv_srq_ring *srq, mlx4dv_sq_ring *sq,
				    ibv_wc *wc, const ibv_recv_wr *wr,
				    const ibv_sge *sg)
{
	mlx4_cqe out[4];
	const ibv_recv_wr *bad = nullptr;
	mlx4dv_poll_qp q = { 1, MLX4DV_CQE_RX_ETHERNET, sq, rq, srq };
	uint64_t s = 0, id = 0;
	uint32_t polled = 0;
	mlx4_cqe *c = mlx4dv_cq_next(cq);

	if (!c || !mlx4dv_cqe_sw_owned(mlx4dv_cq_cqe(cq, 0), 0, cq->cqe_cnt) ||
	    !mlx4dv_cq_peek(cq))
		return 0;
	s += static_cast<uint64_t>(mlx4dv_cq_poll_batch(cq, out, 4));
	s += mlx4dv_cqe_qpn(c) + static_cast<unsigned>(mlx4dv_cqe_is_send(c)) +
	     mlx4dv_cqe_opcode(c) + static_cast<unsigned>(mlx4dv_cqe_is_error(c)) +
	     mlx4dv_cqe_syndrome(c) + mlx4dv_cqe_vendor_syndrome(c);
	s += static_cast<unsigned>(mlx4dv_cqe_wc_status(c)) +
	     static_cast<unsigned>(mlx4dv_cqe_wc_opcode(c)) +
	     static_cast<unsigned>(mlx4dv_cqe_syndrome_to_wc_status(5)) +
	     mlx4dv_cqe_byte_len(c) + static_cast<uint32_t>(mlx4dv_cqe_imm_data(c));
	s += mlx4dv_cqe_invalidated_rkey(c) + mlx4dv_cqe_rss_hash(c) +
	     mlx4dv_cqe_pkey_index(c) + mlx4dv_cqe_src_qp(c) +
	     mlx4dv_cqe_dlid_path_bits(c) + static_cast<unsigned>(mlx4dv_cqe_has_grh(c));
	s += mlx4dv_cqe_slid(c) + mlx4dv_cqe_sl(c, 1) +
	     static_cast<unsigned>(mlx4dv_cqe_vlan_present(c)) + mlx4dv_cqe_vlan_id(c);
	s += mlx4dv_cqe_status(c) + static_cast<unsigned>(mlx4dv_cqe_is_ipv4(c)) +
	     static_cast<unsigned>(mlx4dv_cqe_is_ipv6(c)) +
	     static_cast<unsigned>(mlx4dv_cqe_ip_hdr_csum_ok(c)) +
	     static_cast<unsigned>(mlx4dv_cqe_l4_csum_ok(c)) +
	     static_cast<unsigned>(mlx4dv_cqe_ip_csum_ok(c));
	s += mlx4dv_cqe_checksum(c) + mlx4dv_cqe_timestamp(c) +
	     mlx4dv_cqe_wqe_index(c) + mlx4dv_cqe_wc_flags(c, MLX4DV_CQE_RX_CSUM_VALID);
	s += mlx4dv_ts_delta(mlx4dv_cqe_timestamp(c), 1) +
	     mlx4dv_ts_extend(mlx4dv_cqe_timestamp(c), MLX4DV_CQE_TIMESTAMP_MASK) +
	     mlx4dv_ts_to_ns(s, 427000) + mlx4dv_ns_to_ts(s, 427000);
	mlx4dv_cqe_to_wc(c, 0, wc);
	mlx4dv_cq_update_ci(cq);
	mlx4dv_cq_arm(cq, 1);
	mlx4dv_cq_ack_event(cq);
	mlx4dv_wqe_set_scatter(mlx4dv_rq_wqe(rq, 0), sg, 1, 2);
	s += static_cast<unsigned>(mlx4dv_rq_write(rq, 1, sg, 1));
	mlx4dv_rq_ring_doorbell(rq);
	s += static_cast<unsigned>(mlx4dv_rq_post(rq, 1, sg, 1)) +
	     static_cast<unsigned>(mlx4dv_rq_post_list(rq, wr, &bad)) +
	     static_cast<unsigned>(mlx4dv_rq_complete(rq, c, &id));
	s += static_cast<unsigned>(mlx4dv_srq_write(srq, 1, sg, 1));
	mlx4dv_srq_ring_doorbell(srq);
	s += mlx4dv_srq_wqe(srq, 0)->next_wqe_index;
	s += static_cast<unsigned>(mlx4dv_srq_post(srq, 1, sg, 1)) +
	     static_cast<unsigned>(mlx4dv_srq_post_list(srq, wr, &bad)) +
	     static_cast<unsigned>(mlx4dv_srq_free_wqe(srq, 0)) +
	     static_cast<unsigned>(mlx4dv_srq_complete(srq, c, &id));
	s += static_cast<unsigned>(mlx4dv_cq_poll_send(cq, sq, &id)) +
	     static_cast<unsigned>(mlx4dv_cq_poll_send(cq, sq, nullptr));
	{
		const struct mlx4_cqe *taken = nullptr;
		uint32_t len = 0;

		s += static_cast<unsigned>(mlx4dv_cq_poll_recv(cq, rq, &id, &len,
							       &taken)) +
		     static_cast<unsigned>(mlx4dv_cq_poll_srq_recv(cq, srq, &id,
								   &len, &taken)) +
		     len + static_cast<unsigned>(srq ? mlx4dv_srq_wqe_is_free(srq, 0) : 0);
	}
	s += static_cast<unsigned>(mlx4dv_sq_complete_cqe(sq, c, &id)) +
	     static_cast<unsigned>(mlx4dv_cqe_complete_wc(c, &q, 1, wc)) +
	     static_cast<unsigned>(mlx4dv_cq_poll_wc(cq, &q, 1, 4, wc, &polled));
	return s + id + polled;
}
