// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* One RC bring-up for every benchmark program (rc_connect.h). */
#include "rc_connect.h"

#include <string.h>

int bench_rc_connect(struct ibv_qp *qp, uint32_t dest_qpn,
		     const struct bench_rc_path *path, const char **step)
{
	struct ibv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = path->ah.port_num;
	a.qp_access_flags = path->access;
	*step = "INIT";
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			    IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = path->mtu;
	a.dest_qp_num = dest_qpn;
	a.ah_attr = path->ah;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	*step = "RTR";
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	*step = "RTS";
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}
