/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Verbs set-up shared by the device tests of this directory: one device,
 * one PD, one registered region, QPs connected in loopback on port 1, and
 * the direct-path handles of libmlx4dv over them.
 */
#ifndef RELIABILITY_EMU_VERBS_H
#define RELIABILITY_EMU_VERBS_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <infiniband/mlx4dv.h>

#define EV_QKEY 0x11111111u

struct ev_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint32_t pdn;
	uint16_t lid;
	union ibv_gid gid;
	int is_eth;
	uint8_t *mem;		/* registered, page-aligned */
	size_t mem_len;
	struct ibv_mr *mr;
};

/* Opens the first device; registers mem_len bytes for local and remote
 * access. Returns 0 or an errno (message on stderr). */
int ev_open(struct ev_dev *d, size_t mem_len);
void ev_close(struct ev_dev *d);

/* A QP of `type` on the given CQs (and SRQ), in RESET. */
struct ibv_qp *ev_qp_create(struct ev_dev *d, enum ibv_qp_type type,
			    struct ibv_cq *scq, struct ibv_cq *rcq,
			    struct ibv_srq *srq, uint32_t max_send_wr,
			    uint32_t max_recv_wr, uint32_t max_sge,
			    uint32_t max_inline);

/* RESET -> INIT -> RTR -> RTS; RC/UC towards dest_qpn on this port, UD
 * with EV_QKEY. Returns 0 or the errno of ibv_modify_qp. */
int ev_qp_to_rts(struct ev_dev *d, struct ibv_qp *qp, uint32_t dest_qpn);

/* Destination of UD sends to this port (the AV libmlx4 would build). */
int ev_ud_dest(struct ev_dev *d, struct mlx4dv_ud_av *av);

#endif
