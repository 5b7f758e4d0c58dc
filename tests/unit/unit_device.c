// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_device.h"
#include "verbs_env.h"

struct unit_dev *unit_dev_open(void)
{
	struct unit_dev *d = calloc(1, sizeof(*d));
	struct vx_env e;

	if (!d)
		return NULL;
	if (vx_env_open(&e, NULL, 0, 1)) {
		free(d);
		return NULL;
	}
	d->ctx = e.ctx;
	d->pd = e.pd;
	d->port = e.port;
	d->lid = e.port_attr.lid;
	d->link_layer = e.port_attr.link_layer;
	d->gid = e.gid;
	return d;
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
	return vx_qp_create(d->pd, type, send_cq, recv_cq, srq, cap);
}

int unit_qp_connect(struct unit_dev *d, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct vx_qp_attrs a;

	vx_qp_attrs_default(&a, d->port);
	a.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ;
	a.dest_qpn = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.max_rd_atomic = 1;
	return vx_qp_to_rts_loopback(d->ctx, qp, &a);
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
