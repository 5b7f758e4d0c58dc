/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The named states the requester, responder and completer of an RC/UC/XRC
 * connection step through, with the names the debug trace prints (in the
 * manner of rxe's resp_states and comp_state tables).  Every change of a
 * role's state is one trace line with --debug:
 *
 *   mlx4emu: QPN 0x000012 completer: ACK -> NAK SEQUENCE
 *
 * A role's state says what it did last; it starts IDLE when the QP's
 * connection is created (first packet sent or heard) and a new connection
 * after RESET starts IDLE again.
 */
#ifndef MLX4EMU_TRANSPORT_STATE_H
#define MLX4EMU_TRANSPORT_STATE_H

struct emu_conn;

enum req_state {
	REQ_IDLE,		/* every posted WQE is on the wire */
	REQ_SEND,		/* request packets going out */
	REQ_WAIT_WINDOW,	/* the PSN window is full: waits for ACKs */
	REQ_WAIT_RD_ATOMIC,	/* max_rd_atomic READs/atomics outstanding */
	REQ_WAIT_CREDITS,	/* the link to the peer has no credits */
	REQ_GO_BACK,		/* transmission resumes at an earlier PSN */
	REQ_RNR_WAIT,		/* nothing goes out before the RNR timer */
	REQ_ERROR,		/* the QP is in ERR: nothing more is sent */
	REQ_NSTATES
};

enum resp_state {
	RESP_IDLE,
	RESP_EXECUTE,		/* the expected PSN: executed, ACK coalesced */
	RESP_OUT_OF_SEQUENCE,	/* a PSN ahead: one PSN sequence NAK */
	RESP_DUPLICATE,		/* a PSN behind: ACKed again or replayed */
	RESP_RNR_NAK,		/* no receive WQE: RNR NAK, nothing changed */
	RESP_NAK,		/* an invalid request: NAK, the QP to ERR */
	RESP_UC_GAP,		/* UC: PSNs lost, the message in progress dropped */
	RESP_UC_DROP,		/* UC: a request refused, its message dropped */
	RESP_ERROR,		/* memory the request reaches is gone */
	RESP_NSTATES
};

enum comp_state {
	COMP_IDLE,
	COMP_ACK,		/* an ACK retired the WQEs it covers */
	COMP_READ_RESPONSE,	/* a READ response placed */
	COMP_ATOMIC_ACK,	/* an atomic's original value placed */
	COMP_NAK_SEQUENCE,	/* PSN sequence NAK: the requester goes back */
	COMP_RNR_RETRY,		/* RNR NAK: the requester waits, then goes back */
	COMP_TIMEOUT_RETRY,	/* no ACK in the local ACK timeout: resend */
	COMP_ERROR,		/* a WQE retired with an error syndrome */
	COMP_FLUSH,		/* the QP is in ERR: every WQE flushed */
	COMP_NSTATES
};

/* Moves the role to `state`, tracing the change by name (the adapter lock
 * held, engine thread or command path). */
void req_enter(struct emu_conn *c, enum req_state state);
void resp_enter(struct emu_conn *c, enum resp_state state);
void comp_enter(struct emu_conn *c, enum comp_state state);

#endif
