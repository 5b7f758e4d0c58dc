/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Helpers of the device tests: open the (software) ConnectX-3, create and
 * connect objects, read libmlx4's raw layouts. */
#ifndef UNIT_DEVICE_H
#define UNIT_DEVICE_H

#include <stdint.h>
#include <infiniband/mlx4dv.h>

struct unit_dev {
	struct ibv_context	*ctx;
	struct ibv_pd		*pd;
	uint8_t			port;
	uint16_t		lid;
	uint8_t			link_layer;
	union ibv_gid		gid;
};

/* Opens the first device, allocates a PD and queries port 1; NULL when
 * there is no device. */
struct unit_dev *unit_dev_open(void);
void unit_dev_close(struct unit_dev *d);

/* What the tests of two connected QPs start from: the device
 * (unit_dev_open) and UNIT_MEM_BYTES of zeroed memory registered on its
 * PD for local writes. */
#define UNIT_MEM_BYTES 4096
struct unit_mem_dev {
	struct unit_dev	*d;
	uint8_t		*mem;
	struct ibv_mr	*mr;
};

/* 0, or -1 with nothing left open. */
int unit_mem_dev_open(struct unit_mem_dev *md);
/* Deregisters, frees and closes; ibv_dereg_mr's result (0 or errno). */
int unit_mem_dev_close(struct unit_mem_dev *md);

/* QP of a type with the given caps on send_cq/recv_cq (and srq). NULL and
 * errno on failure. */
struct ibv_qp *unit_qp_create(struct unit_dev *d, enum ibv_qp_type type,
			      struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
			      struct ibv_srq *srq, const struct ibv_qp_cap *cap);

/* RESET -> INIT -> RTR -> RTS for an RC/UC pair on one port; 0 or errno. */
int unit_qp_connect(struct unit_dev *d, struct ibv_qp *qp, uint32_t dest_qpn);

/* Number of shared mappings in /proc/self/maps. */
int unit_maps_count(void);

/* libmlx4's raw layouts, with comp_mask set as asked. */
int unit_raw_qp(struct ibv_qp *qp, struct mlx4dv_qp *out);
int unit_raw_cq(struct ibv_cq *cq, struct mlx4dv_cq *out);
int unit_raw_srq(struct ibv_srq *srq, struct mlx4dv_srq *out);

#endif
