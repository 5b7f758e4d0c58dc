/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Verbs plumbing shared by the completion tests that run on the software
 * ConnectX-3: open the first device, create and connect QPs on port 1
 * (InfiniBand or RoCE, whichever the device reports), register buffers,
 * and wait until the device is idle. Failures abort the test through
 * cmocka's fail_msg().
 */
#ifndef COMPLETION_EMU_UTIL_H
#define COMPLETION_EMU_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "verbs_env.h"

#define EMU_PORT 1

struct emu_env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int is_eth;
	struct mlx4emu_ctl ctl;
};

struct emu_buf {
	uint8_t *p;
	size_t len;
	struct ibv_mr *mr;
};

static inline void emu_env_open(struct emu_env *e)
{
	struct ibv_device **list;
	int n = 0;

	memset(e, 0, sizeof(*e));
	if (mlx4emu_ctl_load(&e->ctl))
		fail_msg("not running on the software ConnectX-3 (mlx4emu-run)");
	list = ibv_get_device_list(&n);
	if (!list || n < 1)
		fail_msg("no RDMA device");
	e->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!e->ctx)
		fail_msg("ibv_open_device failed");
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		fail_msg("ibv_alloc_pd failed");
	if (ibv_query_port(e->ctx, EMU_PORT, &e->port))
		fail_msg("ibv_query_port failed");
	e->is_eth = e->port.link_layer == IBV_LINK_LAYER_ETHERNET;
	if (ibv_query_gid(e->ctx, EMU_PORT, 0, &e->gid))
		fail_msg("ibv_query_gid failed");
}

static inline void emu_env_close(struct emu_env *e)
{
	ibv_dealloc_pd(e->pd);
	ibv_close_device(e->ctx);
}

static inline void emu_wait_idle(struct emu_env *e)
{
	int rc = e->ctl.wait_idle(10000);

	if (rc)
		fail_msg("mlx4emu_wait_idle: %d", rc);
}

static inline void emu_buf_alloc(struct emu_env *e, struct emu_buf *b, size_t len)
{
	b->len = len;
	b->p = (uint8_t *)aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
	if (!b->p)
		fail_msg("out of memory");
	memset(b->p, 0, len);
	b->mr = ibv_reg_mr(e->pd, b->p, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND);
	if (!b->mr)
		fail_msg("ibv_reg_mr failed");
}

static inline void emu_buf_free(struct emu_buf *b)
{
	ibv_dereg_mr(b->mr);
	free(b->p);
}

static inline struct ibv_qp *emu_qp_create(struct emu_env *e, enum ibv_qp_type type,
					   struct ibv_cq *scq, struct ibv_cq *rcq,
					   struct ibv_srq *srq, uint32_t max_recv_wr,
					   uint32_t max_recv_sge, int sig_all)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.qp_type = type;
	a.send_cq = scq;
	a.recv_cq = rcq;
	a.srq = srq;
	a.sq_sig_all = sig_all;
	a.cap.max_send_wr = 32;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_wr = srq ? 0 : max_recv_wr;
	a.cap.max_recv_sge = srq ? 0 : max_recv_sge;
	qp = ibv_create_qp(e->pd, &a);
	if (!qp)
		fail_msg("ibv_create_qp failed");
	return qp;
}

static inline void emu_ah_attr(struct emu_env *e, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = e->port.lid;
	ah->port_num = EMU_PORT;
	ah->sl = 3;
	if (e->is_eth) {
		ah->is_global = 1;
		ah->grh.dgid = e->gid;
		ah->grh.sgid_index = 0;
		ah->grh.hop_limit = 1;
	}
}

/* RESET -> INIT -> RTR -> RTS, connected to dest_qpn on the same port. */
static inline void emu_rc_connect(struct emu_env *e, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, EMU_PORT);
	a.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qpn = dest_qpn;
	emu_ah_attr(e, &a.ah);
	if (vx_qp_to_rts(qp, &a))
		fail_msg("RC QP 0x%x did not reach RTS", qp->qp_num);
}

static inline void emu_ud_ready(struct ibv_qp *qp)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, EMU_PORT);
	if (vx_qp_to_rts(qp, &a))
		fail_msg("UD QP 0x%x did not reach RTS", qp->qp_num);
}

static inline void emu_qp_to_error(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_ERR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		fail_msg("modify to ERR failed");
}

#endif
