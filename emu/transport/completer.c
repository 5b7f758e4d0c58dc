// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The completer: ACKs, NAKs and responses from the peer's responder
 * retire the requester's WQEs in order and write their send CQEs.  An
 * ACK (or any response) with PSN p acknowledges every request PSN up to
 * p; a READ completes with its last response packet, an atomic with its
 * ATOMIC ACKNOWLEDGE.  NAK PSN sequence error: send again from its PSN.
 * RNR NAK: wait the timer it names (capped by --rnr-cap), up to
 * rnr_retry times (7: forever), then RNR_RETRY_EXC_ERR.  Remote errors
 * end the WQE with their syndrome.  No progress for the local ACK timeout
 * (4.096 us x 2^timeout): send again from the oldest unacknowledged PSN,
 * up to retry_cnt times, then RETRY_EXC_ERR.  The QP is then in ERR and
 * every later WQE is flushed.  Acknowledged PSNs grow the requester's
 * window, losses halve it (rc_window.h).
 */
#include "adapter/engine.h"
#include "adapter/responder.h"
#include "base/config.h"
#include "base/trace.h"
#include "transport/psn.h"
#include "transport/conn.h"
#include "transport/completer.h"
#include "transport/conn_out.h"
#include "transport/conn_timers.h"
#include "transport/requester.h"

/* RNR NAK timer codes (IBTA table 45), microseconds. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static struct req_wqe *head_wqe(struct requester *r)
{
	return r->head == r->tail ? NULL : &r->ring[r->head & r->ring_mask];
}

static uint32_t last_psn(const struct req_wqe *w)
{
	return emu_psn_add(w->first_psn, w->npkts - 1);
}

/* Completes the head WQE (syndrome 0: success) and forgets it. */
static void retire(struct emu_conn *c, uint8_t syndrome)
{
	struct requester *r = &c->req;
	struct req_wqe *w = head_wqe(r);

	if (!w->local && req_is_rd_atomic(w->opcode) && r->send != r->head && r->rd_atomic)
		r->rd_atomic--;
	if (r->send == r->head) {
		r->send++;
		r->send_pkt = 0;
	}
	r->head++;
	if (w->local ? w->syndrome : syndrome)
		comp_enter(c, COMP_ERROR);
	emu_send_cqe(c->qp, w->index, w->opcode, w->len, w->signaled,
		     w->local ? w->syndrome : syndrome);
}

/* The requester made progress: timers restart, the counts refill. */
static void progress(struct emu_conn *c, uint64_t now_ns)
{
	struct requester *r = &c->req;
	struct emu_qp *qp = c->qp;

	r->retry_left = qp->attr.retry_cnt;
	r->rnr_left = qp->attr.rnr_retry;
	if (r->head == r->tail || !qp->attr.timeout) {
		r->retry_due_ns = 0;
	} else {
		if (!now_ns)
			now_ns = emu_now_ns();
		r->retry_due_ns = now_ns + (4096ull << (qp->attr.timeout & 31));
	}
	conn_timer_watch(c);
	if (r->blocked) {
		r->blocked = false;
		emu_qp_schedule(qp);
	}
}

/* The PSNs before `next` are acknowledged: una_psn moves on to it, and
 * the window grows by what that covers. */
static void acknowledge_to(struct requester *r, uint32_t next)
{
	int32_t d = emu_psn_diff(next, r->una_psn);

	if (d <= 0)
		return;
	rc_window_acked(&r->window, (uint32_t)d);
	r->una_psn = next;
}

/* Retires the WQEs that the acknowledgement of every PSN up to `psn`
 * completes (SEND/WRITE wholly covered, local completions behind them);
 * returns how many. */
static int ack_through(struct emu_conn *c, uint32_t psn)
{
	struct requester *r = &c->req;
	struct req_wqe *w;
	int n = 0;

	acknowledge_to(r, emu_psn_add(psn, 1));
	while ((w = head_wqe(r)) && c->qp->state != EMU_QPS_ERR) {
		if (!w->local && (req_is_rd_atomic(w->opcode) ||
				  emu_psn_diff(last_psn(w), psn) > 0))
			break;
		retire(c, 0);
		n++;
	}
	return n;
}

/* The WQEs after the head that completed locally follow it out. */
static int retire_locals(struct emu_conn *c)
{
	struct req_wqe *w;
	int n = 0;

	while ((w = head_wqe(&c->req)) && w->local && c->qp->state != EMU_QPS_ERR) {
		retire(c, 0);
		n++;
	}
	return n;
}

static uint8_t nak_syndrome(uint8_t code)
{
	switch (code) {
	case EMU_NAK_REMOTE_ACCESS:
		return EMU_SYN_REMOTE_ACCESS;
	case EMU_NAK_REMOTE_OP:
		return EMU_SYN_REMOTE_OP;
	default:
		return EMU_SYN_REMOTE_INVAL_REQ;
	}
}

static void on_rnr_nak(struct emu_conn *c, uint32_t psn, uint8_t timer, uint64_t now_ns)
{
	struct requester *r = &c->req;
	struct emu_qp *qp = c->qp;
	uint64_t wait_us = rnr_timer_us[timer & 31];

	EMU_CTR_INC(rnr_naks);
	if (qp->attr.rnr_retry != 7 && r->rnr_left == 0) {
		EMU_TRACE("QPN 0x%x: RNR retries exhausted (%u)", qp->qpn, qp->attr.rnr_retry);
		retire(c, EMU_SYN_RNR_RETRY_EXC);
		return;
	}
	comp_enter(c, COMP_RNR_RETRY);
	if (qp->attr.rnr_retry != 7)
		r->rnr_left--;
	if (wait_us > emu_cfg.rnr_cap_us)
		wait_us = emu_cfg.rnr_cap_us;
	req_rewind(c, psn);
	/* what followed the refused packet is discarded: its credits return
	 * while the QP waits */
	conn_link_give_up(c);
	req_enter(c, REQ_RNR_WAIT);
	r->rnr_due_ns = now_ns + wait_us * 1000;
	r->retry_due_ns = 0;
	conn_timer_watch(c);
}

/*
 * Where the head WQE's retransmission starts: a READ after the responses
 * it has, an atomic at its request (an ACK of later PSNs says it was
 * executed, not that its answer came), a SEND/WRITE at its first PSN not
 * acknowledged.
 */
static uint32_t resume_psn(const struct requester *r, const struct req_wqe *w)
{
	if (w->opcode == EMU_OP_RDMA_READ)
		return emu_psn_add(w->first_psn, w->resp_pkts);
	if (req_is_rd_atomic(w->opcode) || emu_psn_diff(r->una_psn, w->first_psn) <= 0 ||
	    emu_psn_diff(r->una_psn, last_psn(w)) > 0)
		return w->first_psn;
	return r->una_psn;
}

/* ACKNOWLEDGE: ACK, RNR NAK or NAK. */
static void on_ack(struct emu_conn *c, uint32_t psn, uint8_t syn, uint64_t now_ns)
{
	struct requester *r = &c->req;
	uint8_t kind = syn & EMU_AETH_KIND_MASK;

	if (kind == EMU_AETH_ACK) {
		comp_enter(c, COMP_ACK);
		if (ack_through(c, psn))
			progress(c, now_ns);
		return;
	}
	/* a NAK acknowledges the PSNs before its own; an old one is stale */
	if (emu_psn_diff(psn, r->una_psn) < 0 || !head_wqe(r))
		return;
	if (ack_through(c, emu_psn_add(psn, EMU_PSN_MASK)))
		progress(c, now_ns);
	if (!head_wqe(r) || c->qp->state == EMU_QPS_ERR)
		return;
	if (kind == EMU_AETH_RNR_NAK) {
		on_rnr_nak(c, psn, syn & 0x1f, now_ns);
	} else if ((syn & 0x1f) == EMU_NAK_PSN_SEQ) {
		comp_enter(c, COMP_NAK_SEQUENCE);
		rc_window_loss(&r->window);
		req_rewind(c, psn);
	} else {
		EMU_TRACE("QPN 0x%x: NAK code %u for PSN 0x%x", c->qp->qpn, syn & 0x1f, psn);
		retire(c, nak_syndrome(syn & 0x1f));
	}
}

/* Places `len` response bytes at `off` of the head WQE's data segments. */
static int place(struct emu_conn *c, const struct req_wqe *w, uint64_t off,
		 const uint8_t *p, uint32_t len)
{
	struct emu_gather g = { 0 };

	if (off)
		emu_gather_add(&g, NULL, (uint32_t)off);
	emu_gather_add(&g, p, len);
	if (!g.n)
		return 0;
	return emu_scatter_segs(c->qp->pdn, w->data, w->nsegs, &g, NULL);
}

static void on_read_response(struct emu_conn *c, uint8_t bop, uint32_t psn,
			     const uint8_t *p, uint32_t len, uint64_t now_ns)
{
	struct requester *r = &c->req;
	uint32_t mtu = conn_mtu(c->qp);
	struct req_wqe *w;
	uint32_t expect;
	bool last = bop == EMU_BOP_READ_RESP_LAST || bop == EMU_BOP_READ_RESP_ONLY;
	int32_t d;

	/* a response acknowledges every request before it */
	ack_through(c, emu_psn_add(psn, EMU_PSN_MASK));
	w = head_wqe(r);
	if (!w || w->opcode != EMU_OP_RDMA_READ || w->local || c->qp->state == EMU_QPS_ERR)
		return;
	expect = emu_psn_add(w->first_psn, w->resp_pkts);
	d = emu_psn_diff(psn, expect);
	if (d < 0 || emu_psn_diff(psn, last_psn(w)) > 0)
		return;	/* a duplicate, or not this READ's */
	if (d > 0) {
		/* a response was lost: ask for the rest once per gap */
		if (r->read_rewind_psn != expect) {
			r->read_rewind_psn = expect;
			rc_window_loss(&r->window);
			req_rewind(c, expect);
		}
		return;
	}
	if (len != (last ? w->len - (uint64_t)w->resp_pkts * mtu : mtu) ||
	    last != (w->resp_pkts + 1 == w->npkts)) {
		retire(c, EMU_SYN_REMOTE_INVAL_REQ);
		return;
	}
	if (place(c, w, (uint64_t)w->resp_pkts * mtu, p, len)) {
		retire(c, EMU_SYN_LOCAL_PROT);
		return;
	}
	comp_enter(c, COMP_READ_RESPONSE);
	w->resp_pkts++;
	acknowledge_to(r, emu_psn_add(psn, 1));
	if (last)
		retire(c, 0);
	retire_locals(c);
	progress(c, now_ns);
}

static void on_atomic_ack(struct emu_conn *c, uint32_t psn, uint64_t orig,
			  uint64_t now_ns)
{
	struct requester *r = &c->req;
	struct req_wqe *w;

	ack_through(c, emu_psn_add(psn, EMU_PSN_MASK));
	w = head_wqe(r);
	if (!w || w->local || (w->opcode != EMU_OP_ATOMIC_CS && w->opcode != EMU_OP_ATOMIC_FA) ||
	    w->first_psn != psn || c->qp->state == EMU_QPS_ERR)
		return;
	comp_enter(c, COMP_ATOMIC_ACK);
	acknowledge_to(r, emu_psn_add(psn, 1));
	/* the original value lands in host order, as the in-process path
	 * leaves it */
	retire(c, place(c, w, 0, (const uint8_t *)&orig, 8) ? EMU_SYN_LOCAL_PROT : 0);
	retire_locals(c);
	progress(c, now_ns);
}

void comp_receive(struct emu_conn *c, const struct emu_rx *rx,
		  const struct emu_bth *bth, const struct emu_ext_layout *l)
{
	uint8_t bop = bth->opcode & 0x1f, syn = 0;
	uint32_t msn, hl = EMU_BTH_BYTES + l->len;
	uint64_t now_ns = emu_now_ns();

	if (!c->req.ready || !c->req.ring || rx->len < hl + bth->pad)
		return;
	if (l->aeth) {
		emu_aeth_get(rx->pkt + l->aeth, &syn, &msn);
		if ((syn & EMU_AETH_KIND_MASK) == EMU_AETH_ACK)
			conn_link_grant(c, syn & 0x1f, now_ns);
	}
	switch (bop) {
	case EMU_BOP_ACK:
		on_ack(c, bth->psn, syn, now_ns);
		break;
	case EMU_BOP_ATOMIC_ACK:
		if ((syn & EMU_AETH_KIND_MASK) == EMU_AETH_ACK)
			on_atomic_ack(c, bth->psn, emu_atomic_ack_eth_get(rx->pkt + l->atomic_ack_eth),
				      now_ns);
		break;
	default:
		if (l->aeth && (syn & EMU_AETH_KIND_MASK) != EMU_AETH_ACK)
			break;
		on_read_response(c, bop, bth->psn, rx->pkt + hl,
				 (uint32_t)(rx->len - hl - bth->pad), now_ns);
		break;
	}
	req_transmit(c, now_ns);
}

void comp_timer(struct emu_conn *c, uint64_t now_ns)
{
	struct requester *r = &c->req;
	struct emu_qp *qp = c->qp;
	struct req_wqe *w = head_wqe(r);

	if (r->rnr_due_ns && r->rnr_due_ns <= now_ns) {
		r->rnr_due_ns = 0;
		r->retry_due_ns = 0;
		conn_timer_watch(c);
		req_transmit(c, now_ns);
		return;
	}
	if (!r->retry_due_ns || r->retry_due_ns > now_ns)
		return;
	r->retry_due_ns = 0;
	if (!w || qp->state == EMU_QPS_ERR) {
		conn_timer_watch(c);
		return;
	}
	if (r->retry_left == 0) {
		EMU_TRACE("QPN 0x%x: no ACK after %u retries: transport retry counter exceeded",
			  qp->qpn, qp->attr.retry_cnt);
		retire(c, EMU_SYN_RETRY_EXC);
		conn_timer_watch(c);
		return;
	}
	r->retry_left--;
	comp_enter(c, COMP_TIMEOUT_RETRY);
	rc_window_loss(&r->window);
	/* the packets in flight are taken as lost: the resend takes credits
	 * again, in turn with the other QPs of the link */
	conn_link_give_up(c);
	req_rewind(c, resume_psn(r, w));
	req_transmit(c, now_ns);
	if (!r->retry_due_ns && qp->attr.timeout) {
		r->retry_due_ns = now_ns + (4096ull << (qp->attr.timeout & 31));
		conn_timer_watch(c);
	}
}

int comp_sq_flush(struct emu_qp *qp)
{
	struct emu_conn *c = qp->conn;
	struct requester *r = c ? &c->req : NULL;
	int n = 0;

	if (!r || !r->ring)
		return 0;
	comp_enter(c, COMP_FLUSH);
	req_enter(c, REQ_ERROR);
	while (r->head != r->tail) {
		struct req_wqe *w = &r->ring[r->head++ & r->ring_mask];

		emu_send_cqe(qp, w->index, w->opcode, w->len, true,
			     w->local && w->syndrome ? w->syndrome : EMU_SYN_WR_FLUSH);
		n++;
	}
	r->send = r->head;
	r->send_pkt = 0;
	r->rd_atomic = 0;
	r->retry_due_ns = r->rnr_due_ns = 0;
	conn_timer_watch(c);
	conn_link_forget(c);
	return n;
}

void comp_fault(struct emu_conn *c)
{
	if (head_wqe(&c->req))
		retire(c, EMU_SYN_LOCAL_PROT);
}
