/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The adapter's boundary with the transport to other adapters.  The
 * adapter executes send WQEs; when the destination is another adapter it
 * hands the message to the transport through the operations registered
 * here (the transport layer sits above the adapter and registers them at
 * load).  What arrives from the wire enters the adapter through the same
 * responder functions its in-process path uses (emu_ud_deliver ...).
 */
#ifndef MLX4EMU_ADAPTER_REMOTE_H
#define MLX4EMU_ADAPTER_REMOTE_H

#include "adapter/wqe.h"

/* A UD message at its destination, whichever way it came. */
struct emu_ud_msg {
	uint8_t port;		/* the receiving port: QPs of other ports ignore it */
	uint32_t src_qpn;
	uint32_t qkey;
	uint32_t imm_raw;	/* as stored in the WQE (big-endian) */
	bool has_imm;
	bool solicited;
	uint8_t sl;
	uint16_t slid;		/* the sender's LID (0 on Ethernet) */
	bool grh;		/* the receive buffer gets a GRH */
	uint32_t tclass_flow;	/* traffic class << 20 | flow label */
	uint8_t hop_limit;
	uint8_t sgid[16], dgid[16];
	bool ipoib_csum_ip, ipoib_csum_l4;	/* IPoIB offload asked by the sender */
	const struct emu_gather *payload;
};

/*
 * Delivers a UD message to QP d (of this adapter): port, state and Q_Key
 * checks, receive WQE, GRH area, scatter, receive CQE.  Messages that reach nobody (wrong
 * Q_Key, QP not ready, no receive WQE) are dropped as UD allows.
 */
void emu_ud_deliver(struct emu_qp *d, const struct emu_ud_msg *m);

struct emu_remote_ops {
	/* Sends a UD message to QP dqpn of the adapter at addr (IPv4, host
	 * order) from the sender's port. */
	void (*ud_send)(struct emu_qp *qp, uint32_t addr, uint32_t dqpn,
			const struct emu_ud_msg *m);
};

/* Registers the transport (once, before the engine starts). */
void emu_remote_register(const struct emu_remote_ops *ops);
extern const struct emu_remote_ops *emu_remote;

#endif
