/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RC and UC between adapters (IBTA Vol. 1 ch. 9.5-9.9), as three state
 * machines per QP in the manner of the kernel's soft RoCE (rxe):
 *
 *   requester (rc_requester.c)  send WQEs -> request packets: segmentation
 *                               by path MTU, PSNs, a window of
 *                               outstanding packets (rc_window.h)
 *                               and of READ/atomic requests
 *                               (max_rd_atomic), go-back-N
 *                               retransmission from a PSN
 *   responder (rc_responder.c)  request packets -> execution at this
 *                               adapter's QP: PSN checks, duplicates,
 *                               coalesced ACKs, NAKs, READ responses,
 *                               atomics with a replay cache
 *   completer (rc_completer.c)  ACKs and responses -> send CQEs in WQE
 *                               order; the local ACK timer and RNR waits
 *
 * UC shares the requester's segmentation and the responder's PSN and
 * opcode checks, with no ACKs: a UC WQE completes once its packets are
 * queued, and a message with a PSN gap is dropped at the responder.
 * Everything runs on the engine thread with emu_dev.lock held.
 */
#ifndef MLX4EMU_TRANSPORT_RC_H
#define MLX4EMU_TRANSPORT_RC_H

#include "adapter/remote.h"
#include "transport/link_credits.h"
#include "transport/rc_window.h"
#include "transport/state.h"
#include "wire/link.h"
#include "wire/roce.h"

/* atomics the responder remembers for duplicates */
#define EMU_RC_REPLAY 16

/* A send WQE the requester holds until its completion. */
struct rc_wqe {
	uint8_t opcode;		/* EMU_OP_* */
	bool signaled, solicited;
	bool local;		/* completed locally, waits behind the others */
	uint8_t syndrome;	/* of a local completion */
	uint16_t index;
	uint32_t imm_raw;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t len;
	uint64_t swap_add, compare;
	/* SEND/WRITE: the payload, copied at post when it was inline (the
	 * WQE's copy is gone once it executed), else (in_place) the
	 * registered memory it is in as nchunks struct emu_chunk, read as
	 * each packet is sent and sent again; READ/atomic: the data segments
	 * (16 bytes each) the response goes to */
	uint8_t *data;
	uint32_t cap;
	uint32_t nsegs;
	bool in_place;
	uint32_t nchunks;
	uint32_t first_psn, npkts;
	uint32_t resp_pkts;	/* READ: response packets placed */
	uint32_t xrc_srqn;	/* XRC: the SRQ the request names */
};

struct rc_requester {
	bool ready;		/* initialised from the QP's attributes */
	struct rc_wqe *ring;	/* one entry per SQ WQEBB: never full for a
				 * program that keeps to its SQ */
	uint32_t ring_mask;
	uint32_t head;		/* oldest outstanding WQE */
	uint32_t send;		/* next WQE to transmit (packets send_pkt on) */
	uint32_t tail;		/* next free entry */
	uint32_t send_pkt;
	uint32_t post_psn;	/* PSN the next posted WQE gets */
	uint32_t una_psn;	/* oldest PSN not acknowledged */
	uint32_t sent_end;	/* PSN after the latest one ever sent */
	struct rc_window window;	/* PSNs from una_psn that may be sent */
	uint32_t rd_atomic;	/* READ/atomic requests sent, not complete */
	uint32_t read_rewind_psn;	/* last READ re-request for a gap */
	uint64_t retry_due_ns;	/* local ACK timer; 0: not running */
	uint64_t rnr_due_ns;	/* RNR wait: nothing is sent before */
	uint8_t retry_left, rnr_left;
	bool blocked;		/* the SQ waits for room in the ring */
	uint32_t xrc_srqn;	/* XRC: the SRQ of the WQE being sent */
};

struct rc_responder {
	uint32_t epsn;		/* expected PSN */
	uint32_t msn;
	uint8_t cur;		/* message in progress: 0, 'S'end, 'W'rite */
	bool dropping;		/* UC: the rest of this message is dropped */
	bool have_wqe;		/* a receive WQE is held for the SEND in progress */
	struct emu_rwqe wqe;
	uint64_t off;		/* bytes of the message placed so far */
	uint8_t *wr_host;	/* WRITE: host address of the RETH range */
	uint64_t wr_len;
	bool nak_sent;		/* PSN sequence NAK sent for epsn */
	bool ack_pending;
	struct {
		bool valid;
		uint32_t psn;
		uint64_t orig;
	} replay[EMU_RC_REPLAY];
	uint32_t replay_next;
};

struct emu_rc_conn {
	struct emu_qp *qp;
	unsigned port;
	uint32_t peer;		/* the QP's path (IPv4, host order): where
				 * requests and every answer go */
	struct rc_requester req;
	struct rc_responder resp;
	struct emu_link_claim link;	/* credits on the link to the peer */
	struct {
		uint8_t req, resp, comp;	/* enum req_state, ... (state.h) */
	} states;
	struct emu_rc_conn *tnext, *tprev;	/* list of conns with timers */
	bool timed, ack_listed;
};

/* rc_conn.c: the conn of a QP, the timer list, packets out */
struct emu_rc_conn *rc_conn_get(struct emu_qp *qp);
void rc_conn_free(struct emu_qp *qp);
void rc_timer_watch(struct emu_rc_conn *c);
void rc_ack_later(struct emu_rc_conn *c);
/* Path MTU payload bytes of the QP (256..4096). */
uint32_t rc_mtu(const struct emu_qp *qp);
/* Queues one packet: BTH from the fields, `ext` (the extended headers,
 * l->len bytes), then the payload. */
void rc_packet_out(struct emu_rc_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
		   bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
		   const uint8_t *payload, uint32_t len);
/* The same with the payload in place in registered memory (read when the
 * queue is flushed: emu_link_queue_ref); 0, or EFAULT when reading it
 * faulted. */
int rc_packet_out_ref(struct emu_rc_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
		      bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
		      const struct iovec *iov, int iovcnt);
/* Packets arrived and were handled: sends the coalesced ACKs. */
void rc_flush_acks(void);
/* The timers: earliest deadline, and expiry. */
uint64_t rc_timers_deadline(void);
int rc_timers_run(uint64_t now_ns);

/* rc_requester.c */
int rc_post(struct emu_qp *qp, uint32_t addr, const struct emu_rc_msg *m);
bool rc_queue_local(struct emu_qp *qp, uint16_t wqe_index, uint8_t opcode,
		    uint32_t byte_cnt, bool signaled, uint8_t syndrome);
void rc_req_release(struct emu_rc_conn *c);
/* Sends what the window allows. */
void rc_req_transmit(struct emu_rc_conn *c, uint64_t now_ns);
/* Go back N: transmission resumes at psn. */
void rc_req_rewind(struct emu_rc_conn *c, uint32_t psn);
static inline bool rc_is_rd_atomic(uint8_t opcode)
{
	return opcode == EMU_OP_RDMA_READ || opcode == EMU_OP_ATOMIC_CS ||
	       opcode == EMU_OP_ATOMIC_FA;
}

/* rc_completer.c */
void rc_comp_receive(struct emu_rc_conn *c, const struct emu_rx *rx,
		     const struct emu_bth *bth, const struct emu_ext_layout *l);
/* The local ACK timer or an RNR wait of the conn ended. */
void rc_comp_timer(struct emu_rc_conn *c, uint64_t now_ns);
int rc_sq_flush(struct emu_qp *qp);
/* A guarded access of the completer faulted: the head WQE fails. */
void rc_comp_fault(struct emu_rc_conn *c);

/* rc_responder.c */
void rc_resp_init(struct emu_rc_conn *c);
void rc_resp_receive(struct emu_rc_conn *c, const struct emu_rx *rx,
		     const struct emu_bth *bth, const struct emu_ext_layout *l);
void rc_resp_send_ack(struct emu_rc_conn *c);
/* A guarded access of the responder faulted: the QP goes to ERR. */
void rc_resp_fault(struct emu_rc_conn *c);

#endif
