// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_device.h"

struct unit_dev *unit_dev_open(void)
{
	struct ibv_device **list;
	struct ibv_port_attr pa;
	struct unit_dev *d;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d || n < 1)
		goto fail;
	d->ctx = ibv_open_device(list[0]);
	if (!d->ctx)
		goto fail;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		goto fail;
	d->port = 1;
	if (ibv_query_port(d->ctx, d->port, &pa))
		goto fail;
	d->lid = pa.lid;
	d->link_layer = pa.link_layer;
	if (ibv_query_gid(d->ctx, d->port, 0, &d->gid))
		goto fail;
	ibv_free_device_list(list);
	return d;
fail:
	if (d) {
		if (d->pd)
			ibv_dealloc_pd(d->pd);
		if (d->ctx)
			ibv_close_device(d->ctx);
		free(d);
	}
	ibv_free_device_list(list);
	return NULL;
}

void unit_dev_close(struct unit_dev *d)
{
	if (!d)
		return;
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->ctx);
	free(d);
}

int unit_mem_dev_open(struct unit_mem_dev *md)
{
	memset(md, 0, sizeof(*md));
	md->d = unit_dev_open();
	if (!md->d)
		return -1;
	md->mem = calloc(1, UNIT_MEM_BYTES);
	if (md->mem)
		md->mr = ibv_reg_mr(md->d->pd, md->mem, UNIT_MEM_BYTES,
				    IBV_ACCESS_LOCAL_WRITE);
	if (!md->mr) {
		free(md->mem);
		unit_dev_close(md->d);
		memset(md, 0, sizeof(*md));
		return -1;
	}
	return 0;
}

int unit_mem_dev_close(struct unit_mem_dev *md)
{
	int ret = ibv_dereg_mr(md->mr);

	free(md->mem);
	unit_dev_close(md->d);
	memset(md, 0, sizeof(*md));
	return ret;
}

struct ibv_qp *unit_qp_create(struct unit_dev *d, enum ibv_qp_type type,
			      struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
			      struct ibv_srq *srq, const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = type;
	attr.send_cq = send_cq;
	attr.recv_cq = recv_cq;
	attr.srq = srq;
	attr.cap = *cap;
	return ibv_create_qp(d->pd, &attr);
}

int unit_qp_connect(struct unit_dev *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = d->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest_qpn;
	a.rq_psn = 0;
	a.ah_attr.port_num = d->port;
	a.ah_attr.dlid = d->lid;
	if (d->link_layer == IBV_LINK_LAYER_ETHERNET) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = d->gid;
		a.ah_attr.grh.hop_limit = 1;
	}
	if (qp->qp_type == IBV_QPT_RC) {
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	} else {
		ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN);
	}
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (qp->qp_type == IBV_QPT_RC) {
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	}
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* Shared mappings only: UAR and BlueFlame pages are MAP_SHARED, while
 * the private ones come and go with malloc arenas (and valgrind). */
int unit_maps_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	bool line_start = true;

	while (fgets(line, sizeof(line), f)) {
		char perms[8];

		if (line_start && sscanf(line, "%*s %7s", perms) == 1 &&
		    perms[3] == 's')
			n++;
		/* a long path continues in the next chunk */
		line_start = strchr(line, '\n') != NULL;
	}
	fclose(f);
	return n;
}

int unit_raw_qp(struct ibv_qp *qp, struct mlx4dv_qp *out)
{
	struct mlx4dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	memset(out, 0, sizeof(*out));
	out->comp_mask = MLX4DV_QP_MASK_UAR_MMAP_OFFSET;
	obj.qp.in = qp;
	obj.qp.out = out;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP);
}

int unit_raw_cq(struct ibv_cq *cq, struct mlx4dv_cq *out)
{
	struct mlx4dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	memset(out, 0, sizeof(*out));
	out->comp_mask = MLX4DV_CQ_MASK_UAR;
	obj.cq.in = cq;
	obj.cq.out = out;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_CQ);
}

int unit_raw_srq(struct ibv_srq *srq, struct mlx4dv_srq *out)
{
	struct mlx4dv_obj obj;

	memset(&obj, 0, sizeof(obj));
	memset(out, 0, sizeof(*out));
	obj.srq.in = srq;
	obj.srq.out = out;
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_SRQ);
}
