/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The benchmarks' RC bring-up (rc_connect.c). */
#ifndef BENCH_RC_CONNECT_H
#define BENCH_RC_CONNECT_H

#include <stdint.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/verbs.h>
#pragma GCC diagnostic pop

struct bench_rc_path {
	struct ibv_ah_attr	ah;		/* the peer: LID, or GID on RoCE */
	enum ibv_mtu		mtu;
	unsigned int		access;		/* IBV_ACCESS_* the peer may use */
};

/*
 * RESET -> INIT -> RTR -> RTS of an RC QP towards dest_qpn on path (port
 * path->ah.port_num, PSNs 0, one RDMA read or atomic in flight, RNR and
 * transport retries 7, timeout 14). 0, or ibv_modify_qp()'s errno with
 * *step naming the transition that failed.
 */
int bench_rc_connect(struct ibv_qp *qp, uint32_t dest_qpn,
		     const struct bench_rc_path *path, const char **step);

#endif
