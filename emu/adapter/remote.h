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

/* What became of a UD message handed to emu_ud_deliver(). */
enum emu_ud_fate {
	EMU_UD_TAKEN,		/* a receive WQE took it (a CQE, maybe an error) */
	EMU_UD_NOT_FOR_QP,	/* not a UD QP of the port ready to receive, or
				 * another Q_Key: dropped, the caller counts it */
	EMU_UD_NO_WQE,		/* the QP had no receive WQE: dropped and counted
				 * (emu_port_ud_no_wqe_drops) */
};

/*
 * Delivers a UD message to QP d (of this adapter): port, state and Q_Key
 * checks, receive WQE, GRH area, scatter, receive CQE.  Messages that
 * reach nobody are dropped as UD allows, but never silently: a QP
 * without a receive WQE counts at its port, as a ConnectX-3 counts
 * datagrams it had no buffer for; the other refusals are the caller's to
 * count (a packet from the wire counts as refused).
 */
enum emu_ud_fate emu_ud_deliver(struct emu_qp *d, const struct emu_ud_msg *m);

/*
 * An RC, UC or XRC send WQE whose QP's path leads to another adapter, as the
 * adapter decoded it (every value in host order unless noted).  The
 * transport copies what it keeps: the memory behind `payload` and `segs`
 * may change once conn_post returns.
 */
struct emu_conn_msg {
	uint8_t opcode;		/* EMU_OP_SEND ... EMU_OP_ATOMIC_FA */
	uint16_t wqe_index;	/* WQEBB counter of the WQE's first WQEBB */
	bool signaled;		/* a CQE is asked for */
	bool solicited;
	uint32_t imm_raw;	/* immediate, or the rkey to invalidate (big-endian) */
	uint64_t raddr;
	uint32_t rkey;
	uint64_t len;		/* message bytes (8 for an atomic) */
	const struct emu_gather *payload;	/* SEND, RDMA WRITE */
	const uint8_t *segs;	/* RDMA READ, atomics: the local data segments */
	uint32_t nsegs;
	uint64_t swap_add, compare;	/* atomics */
	uint32_t xrc_srqn;	/* XRC: the SRQ at the target the request names */
};

/*
 * The address (IPv4, host order) of the adapter the QP's path leads to,
 * from the address vector of its last RTR: the DLID on an InfiniBand
 * port, the DGID on an Ethernet port (wire/identity.h).  false when the
 * path names this adapter or no adapter at all: the QP is then reached
 * only in-process, never from the wire.
 */
bool emu_qp_remote_addr(const struct emu_qp *qp, uint32_t *addr);

struct emu_remote_ops {
	/* Sends a UD message to QP dqpn of the adapter at addr (IPv4, host
	 * order) from the sender's port.  Returns 0 when sent, EAGAIN when
	 * the link has no room for it now (the transport schedules the QP
	 * once it has). */
	int (*ud_send)(struct emu_qp *qp, uint32_t addr, uint32_t dqpn,
		       const struct emu_ud_msg *m);
	/* Floods a UD message to a multicast group (m->dgid, DestQP
	 * 0xffffff) to the other adapters of the wire segment, from the
	 * sender's port. */
	void (*ud_mcast_send)(struct emu_qp *qp, const struct emu_ud_msg *m);
	/* Puts a raw Ethernet frame (len bytes from the destination MAC
	 * on) that a QP sent on Ethernet port `port` onto the wire, to the
	 * other adapters it is for. */
	void (*eth_send)(unsigned port, const uint8_t *frame, uint32_t len);
	/*
	 * Takes an RC/UC message to the QP's remote peer at addr.  Returns 0
	 * when taken (RC: the transport completes the WQE later with
	 * emu_send_cqe(), in order; UC: complete it now), EAGAIN when the
	 * QP's window of outstanding requests is full (the transport
	 * schedules the QP once it has room), or a CQE syndrome for a
	 * message that cannot be sent.
	 */
	int (*conn_post)(struct emu_qp *qp, uint32_t addr, const struct emu_conn_msg *m);
	/*
	 * A WQE of the QP completed locally (syndrome 0 or an error): when
	 * earlier WQEs of the QP still wait for their ACK, the transport
	 * queues this completion behind them and returns true.
	 */
	bool (*conn_queue_local)(struct emu_qp *qp, uint16_t wqe_index, uint8_t opcode,
				 uint32_t byte_cnt, bool signaled, uint8_t syndrome);
	/* The QP is in ERR (or SQE): completes every WQE the transport still
	 * holds, in order (WR_FLUSH_ERR).  Returns the CQEs written. */
	int (*sq_flush)(struct emu_qp *qp);
	/* The QP moved from state cur to next (attributes already applied). */
	void (*qp_modified)(struct emu_qp *qp, int cur, int next);
	/* The QP is being destroyed: the transport forgets it. */
	void (*qp_destroyed)(struct emu_qp *qp);
};

/* Registers the transport (once, before the engine starts). */
void emu_remote_register(const struct emu_remote_ops *ops);
extern const struct emu_remote_ops *emu_remote;

/* The command layer's notifications, forwarded to the transport. */
void emu_remote_qp_modified(struct emu_qp *qp, int cur, int next);
void emu_remote_qp_destroyed(struct emu_qp *qp);

/*
 * Writes the send CQE of a WQE whose completion was deferred (emu_dev.lock
 * held): a success CQE when signaled, an error CQE (and the QP to ERR)
 * for a syndrome other than 0.
 */
void emu_send_cqe(struct emu_qp *qp, uint16_t wqe_index, uint8_t opcode,
		  uint32_t byte_cnt, bool signaled, uint8_t syndrome);

#endif
