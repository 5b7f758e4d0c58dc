/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * mlx4dv_cq_poll_wc() as one number, for the tests that count completions:
 * the completions taken (0 for an empty CQ) or minus the errno of a first
 * CQE the call refused. Aborts when the return value and the count the
 * call reported disagree (a count with an error, none with success).
 */
#ifndef MLX4DV_TEST_WC_POLL_H
#define MLX4DV_TEST_WC_POLL_H

#include <stdlib.h>
#include <infiniband/mlx4dv.h>

static inline int wc_poll_count(struct mlx4dv_cq_ring *cq,
				const struct mlx4dv_poll_qp *qps, uint32_t nqps,
				uint32_t ne, struct ibv_wc *wc)
{
	uint32_t polled = ne + 1;
	int err = mlx4dv_cq_poll_wc(cq, qps, nqps, ne, wc, &polled);

	if (err == 0 && polled >= 1 && polled <= ne)
		return (int)polled;
	if (err != 0 && polled == 0)
		return err == EAGAIN ? 0 : -err;
	abort();
}

#endif
