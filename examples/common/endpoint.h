/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One communication endpoint: a QP with its CQs and a registered buffer,
 * and the state transitions that connect it to a peer described by a
 * struct ex_endpoint_info. Nothing here assumes the peer lives in the same
 * process.
 */
#ifndef MLX4DV_EXAMPLE_ENDPOINT_H
#define MLX4DV_EXAMPLE_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "device.h"
#include "endpoint_info.h"

/* Q_Key the UD examples use on both sides. */
#define EX_UD_QKEY 0x11111111u

struct ex_endpoint_config {
	enum ibv_qp_type	qp_type;	/* RC, UC, UD or RAW_PACKET */
	uint32_t		max_send_wr;
	uint32_t		max_recv_wr;	/* ignored with srq */
	uint32_t		max_send_sge;
	uint32_t		max_recv_sge;
	uint32_t		max_inline_data;
	uint32_t		send_cqe;	/* CQ depth */
	uint32_t		recv_cqe;	/* ignored when shared_cq */
	bool			shared_cq;	/* one CQ for sends and receives */
	struct ibv_cq		*recv_cq;	/* use this receive CQ (not owned) */
	struct ibv_comp_channel	*channel;	/* completion events, or NULL */
	struct ibv_srq		*srq;		/* receives go there, or NULL */
	size_t			buf_size;	/* registered buffer, bytes */
	int			access;		/* extra IBV_ACCESS_* of buf */
	uint8_t			max_rd_atomic;	/* RC: reads/atomics in flight */
};

struct ex_endpoint {
	struct ex_device	*dev;
	enum ibv_qp_type	qp_type;
	struct ibv_cq		*send_cq;
	struct ibv_cq		*recv_cq;	/* == send_cq when shared */
	bool			owns_recv_cq;
	struct ibv_qp		*qp;
	uint8_t			*buf;
	size_t			buf_size;
	struct ibv_mr		*mr;
	uint32_t		psn;
	uint8_t			max_rd_atomic;
	struct ex_endpoint_info	remote;		/* set by ex_endpoint_connect() */
};

/*
 * Creates the CQ(s), the QP and the buffer (page aligned, zeroed,
 * registered with local write plus cfg->access) and moves the QP to INIT,
 * so receives can be posted before the peer is known. Prints the failing
 * step and returns -1 on error (nothing is left allocated).
 */
int ex_endpoint_create(struct ex_endpoint *ep, struct ex_device *dev,
		       const struct ex_endpoint_config *cfg);

void ex_endpoint_destroy(struct ex_endpoint *ep);

/* What the peer needs to know about ep. */
void ex_endpoint_local_info(const struct ex_endpoint *ep,
			    struct ex_endpoint_info *info);

/*
 * INIT -> RTR -> RTS towards the peer (RC/UC: its QPN, PSN, LID or GID;
 * UD and raw packet: only local state; the peer is kept in ep->remote for
 * addressing). Prints and returns -1 on error.
 */
int ex_endpoint_connect(struct ex_endpoint *ep,
			const struct ex_endpoint_info *remote);

/*
 * The address of the peer as an ibv_ah_attr: LID, port, and the GRH
 * (destination GID, source GID index, hop limit 1) where the port needs
 * one or -g asked for it.
 */
void ex_endpoint_ah_attr(const struct ex_endpoint *ep,
			 const struct ex_endpoint_info *remote,
			 struct ibv_ah_attr *ah);

/*
 * Connects a and b with each other, passing both descriptions through the
 * wire format as a two-process exchange would.
 */
int ex_endpoint_connect_pair(struct ex_endpoint *a, struct ex_endpoint *b);

#endif /* MLX4DV_EXAMPLE_ENDPOINT_H */
