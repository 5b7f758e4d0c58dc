/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RC, UC and XRC between adapters (IBTA Vol. 1 ch. 9.5-9.9), as three
 * roles per QP in the manner of the kernel's soft RoCE (rxe), each
 * stepping through the named states of state.h:
 *
 *   requester (requester.c)  send WQEs -> request packets: segmentation
 *                            by path MTU, PSNs, a window of outstanding
 *                            packets (rc_window.h) and of READ/atomic
 *                            requests (max_rd_atomic), go-back-N
 *                            retransmission from a PSN
 *   responder (responder.c)  request packets -> execution at this
 *                            adapter's QP: PSN checks, duplicates, NAKs,
 *                            READ responses, atomics with a replay cache
 *   completer (completer.c)  ACKs and responses -> send CQEs in WQE
 *                            order; the local ACK timer and RNR waits
 *
 * The connection they share (this header, conn.c) has its timer list
 * (conn_timers.c), the responder's coalesced ACKs (ack_coalesce.c) and
 * the packets going out (conn_out.c).  XRC is RC with an XRCETH
 * (xrc_wire.h).
 *
 * UC shares the requester's segmentation and the responder's PSN and
 * opcode checks, with no ACKs: a UC WQE completes once its packets are
 * queued, and a message with a PSN gap is dropped at the responder.
 * Everything runs on the engine thread with the adapter lock held.
 */
#ifndef MLX4EMU_TRANSPORT_CONN_H
#define MLX4EMU_TRANSPORT_CONN_H

#include "adapter/remote.h"
#include "transport/link_credits.h"
#include "transport/rc_window.h"
#include "transport/state.h"
#include "wire/link.h"
#include "wire/roce.h"

/* atomics the responder remembers for duplicates */
#define EMU_RESP_REPLAY 16

/* A send WQE the requester holds until its completion. */
struct req_wqe {
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

struct requester {
	bool ready;		/* initialised from the QP's attributes */
	struct req_wqe *ring;	/* one entry per SQ WQEBB: never full for a
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

struct responder {
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
	} replay[EMU_RESP_REPLAY];
	uint32_t replay_next;
};

struct emu_conn {
	struct emu_qp *qp;
	unsigned port;
	uint32_t peer;		/* the QP's path (IPv4, host order): where
				 * requests and every answer go */
	struct requester req;
	struct responder resp;
	struct emu_link_claim link;	/* credits on the link to the peer */
	struct {
		uint8_t req, resp, comp;	/* enum req_state, ... (state.h) */
	} states;
	struct emu_conn *tnext, *tprev;	/* list of conns with timers
					 * (conn_timers.c) */
	bool timed;		/* on that list */
	bool ack_listed;	/* owes a coalesced ACK (ack_coalesce.c) */
};

/* The connection of a QP, created on first use (NULL when out of
 * memory), and its end (at RESET and destroy; nothing when none). */
struct emu_conn *conn_get(struct emu_qp *qp);
void conn_free(struct emu_qp *qp);

#endif
