/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The requester (requester.c): send WQEs of RC, UC and XRC QPs to request
 * packets.  Engine thread or command path, the adapter lock held. */
#ifndef MLX4EMU_TRANSPORT_REQUESTER_H
#define MLX4EMU_TRANSPORT_REQUESTER_H

#include "adapter/remote.h"
#include "adapter/wqe.h"

struct emu_conn;

/* The remote ops' conn_post and conn_queue_local (adapter/remote.h). */
int req_post(struct emu_qp *qp, uint32_t addr, const struct emu_conn_msg *m);
bool req_queue_local(struct emu_qp *qp, uint16_t wqe_index, uint8_t opcode,
		     uint32_t byte_cnt, bool signaled, uint8_t syndrome);
/* Frees what the requester holds (the conn ends). */
void req_release(struct emu_conn *c);
/* Sends what the window, max_rd_atomic and the link credits allow. */
void req_transmit(struct emu_conn *c, uint64_t now_ns);
/* Go back N: transmission resumes at psn. */
void req_rewind(struct emu_conn *c, uint32_t psn);
static inline bool req_is_rd_atomic(uint8_t opcode)
{
	return opcode == EMU_OP_RDMA_READ || opcode == EMU_OP_ATOMIC_CS ||
	       opcode == EMU_OP_ATOMIC_FA;
}

#endif
