/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One adapter's side of a two-process wire test (eth_pair, ud_mcast,
 * rc_pair): the first device, and QPs each with its own CQ and a
 * registered buffer.  Failures print what failed, prefixed with `prog`,
 * and return NULL or -1.
 */
#ifndef MLX4DV_TEST_WIRE_PEER_SIDE_H
#define MLX4DV_TEST_WIRE_PEER_SIDE_H

#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* The first device of the list, opened; port 1's attributes in *port
 * when port is not NULL. */
struct ibv_context *peer_open_device(const char *prog, struct ibv_port_attr *port);

struct peer_qp {
	struct ibv_cq *cq;	/* send and receive CQ of qp */
	struct ibv_qp *qp;	/* in RESET */
	uint8_t *buf;		/* buf_bytes, page-aligned, zeroed */
	struct ibv_mr *mr;	/* buf, registered with the spec's access */
};

struct peer_qp_spec {
	/* type, caps, and any create flags with their comp_mask bit; the
	 * CQs and the PD are filled in */
	struct ibv_qp_init_attr_ex attr;
	int cqe;
	size_t buf_bytes;
	unsigned int access;	/* enum ibv_access_flags */
};

/* Creates q's CQ, buffer, MR and QP on pd; what was made before a
 * failure stays in q for peer_qp_close. */
int peer_qp_open(const char *prog, struct ibv_context *ctx, struct ibv_pd *pd,
		 const struct peer_qp_spec *spec, struct peer_qp *q);
/* Destroys what q holds (a zeroed q holds nothing); 0 when every destroy
 * returned 0. */
int peer_qp_close(const char *prog, struct peer_qp *q);

#endif
