// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_verbs.h"
#include "verbs_env.h"

int ev_open(struct ev_dev *d, size_t mem_len)
{
	struct ibv_port_attr pa;

	memset(d, 0, sizeof(*d));
	errno = 0;
	d->ctx = vx_device_open(NULL, 0);
	if (!d->ctx)
		return errno ? errno : ENODEV;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd || ibv_query_port(d->ctx, 1, &pa) ||
	    ibv_query_gid(d->ctx, 1, 0, &d->gid))
		return EIO;
	/* libmlx4 keeps the PD number right after struct ibv_pd in its
	 * struct mlx4_pd (rdma-core 44.0 providers/mlx4/mlx4.h); libibverbs
	 * has no call for it, and a UD address vector carries it. */
	memcpy(&d->pdn, (const uint8_t *)d->pd + sizeof(*d->pd), sizeof(d->pdn));
	d->lid = pa.lid;
	d->is_eth = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
	d->mem_len = mem_len;
	if (posix_memalign((void **)&d->mem, 4096, mem_len))
		return ENOMEM;
	memset(d->mem, 0, mem_len);
	d->mr = ibv_reg_mr(d->pd, d->mem, mem_len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	return d->mr ? 0 : (errno ? errno : EIO);
}

void ev_close(struct ev_dev *d)
{
	if (d->mr)
		ibv_dereg_mr(d->mr);
	free(d->mem);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

struct ibv_qp *ev_qp_create(struct ev_dev *d, enum ibv_qp_type type,
			    struct ibv_cq *scq, struct ibv_cq *rcq,
			    struct ibv_srq *srq, uint32_t max_send_wr,
			    uint32_t max_recv_wr, uint32_t max_sge,
			    uint32_t max_inline)
{
	struct ibv_qp_cap cap = {
		.max_send_wr = max_send_wr,
		.max_recv_wr = srq ? 0 : max_recv_wr,
		.max_send_sge = max_sge,
		.max_recv_sge = srq ? 0 : max_sge,
		.max_inline_data = max_inline,
	};

	return vx_qp_create(d->pd, type, scq, rcq, srq, &cap);
}

int ev_qp_to_rts(struct ev_dev *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, 1);
	a.qkey = EV_QKEY;
	if (qp->qp_type != IBV_QPT_RC)
		a.access &= ~(unsigned int)IBV_ACCESS_REMOTE_ATOMIC;
	a.dest_qpn = dest_qpn;
	if (qp->qp_type == IBV_QPT_UD)
		return vx_qp_to_rts(qp, &a);
	return vx_qp_to_rts_loopback(d->ctx, qp, &a);
}

int ev_ud_dest(struct ev_dev *d, struct mlx4dv_ud_av *av)
{
	struct ibv_ah_attr ah;
	struct mlx4dv_ud_av_eth eth;

	memset(&ah, 0, sizeof(ah));
	ah.port_num = 1;
	ah.dlid = d->lid;
	if (d->is_eth) {
		ah.is_global = 1;
		ah.grh.dgid = d->gid;
		ah.grh.hop_limit = 1;
		memset(&eth, 0, sizeof(eth));
		eth.vlan_id = 0xffff;
		/* the loopback destination MAC: the port's own (from the GID's
		 * EUI-64: bytes 8..10 and 13..15, universal bit flipped) */
		eth.mac[0] = (uint8_t)(d->gid.raw[8] ^ 2);
		eth.mac[1] = d->gid.raw[9];
		eth.mac[2] = d->gid.raw[10];
		eth.mac[3] = d->gid.raw[13];
		eth.mac[4] = d->gid.raw[14];
		eth.mac[5] = d->gid.raw[15];
		return mlx4dv_ud_av_init(av, d->pdn, &ah, &eth);
	}
	return mlx4dv_ud_av_init(av, d->pdn, &ah, NULL);
}
