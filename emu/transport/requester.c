// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The requester: a posted RC WQE becomes an entry of the QP's ring with
 * its PSN range (one PSN per packet of path MTU; a READ takes one PSN per
 * response packet), and is sent as far as the windows allow: at most
 * the window's unacknowledged PSNs (rc_window.h), responses of a READ
 * included (its whole range must fit), max_rd_atomic READ/atomic
 * requests, and as the credits of the link to the peer allow
 * (transport/link_credits.h).  After a NAK, a timeout or an RNR wait,
 * sending starts again at a PSN
 * (go-back-N); a READ resumed in the middle asks for the rest of its
 * range only.  UC WQEs are sent at once and complete when queued.
 */
#include <errno.h>
#include <stdlib.h>

#include "adapter/engine.h"
#include "adapter/responder.h"
#include "transport/psn.h"
#include "transport/conn.h"
#include "transport/requester.h"
#include "transport/conn_out.h"
#include "transport/conn_timers.h"
#include "transport/datagram_credits.h"
#include "wire/rcvbuf.h"

static uint32_t npkts(uint8_t opcode, uint64_t len, uint32_t mtu)
{
	if (opcode == EMU_OP_ATOMIC_CS || opcode == EMU_OP_ATOMIC_FA || !len)
		return 1;
	return (uint32_t)((len + mtu - 1) / mtu);
}

static void req_init(struct emu_conn *c)
{
	struct requester *r = &c->req;
	struct emu_qp *qp = c->qp;

	r->head = r->send = r->tail = r->send_pkt = 0;
	r->post_psn = r->una_psn = r->sent_end = qp->attr.sq_psn & EMU_PSN_MASK;
	r->read_rewind_psn = emu_psn_add(r->una_psn, EMU_PSN_MASK);
	rc_window_init(&r->window);
	r->rd_atomic = 0;
	r->retry_due_ns = r->rnr_due_ns = 0;
	r->retry_left = qp->attr.retry_cnt;
	r->rnr_left = qp->attr.rnr_retry;
	r->blocked = false;
	r->ready = true;
}

void req_release(struct emu_conn *c)
{
	struct requester *r = &c->req;

	if (r->ring)
		for (uint32_t i = 0; i <= r->ring_mask; i++)
			free(r->ring[i].data);
	free(r->ring);
	r->ring = NULL;
	r->ready = false;
}

static struct emu_conn *req_conn(struct emu_qp *qp)
{
	struct emu_conn *c = conn_get(qp);

	if (!c)
		return NULL;
	if (!c->req.ready)
		req_init(c);
	if (qp->type != EMU_QPT_UC && !c->req.ring) {
		uint32_t n = qp->sq.cnt > 16 ? qp->sq.cnt : 16;

		c->req.ring = calloc(n, sizeof(*c->req.ring));
		if (!c->req.ring)
			return NULL;
		c->req.ring_mask = n - 1;
	}
	return c;
}

static int reserve(struct req_wqe *w, uint64_t len)
{
	uint8_t *p;

	if (len <= w->cap)
		return 0;
	p = realloc(w->data, len);
	if (!p)
		return EMU_SYN_LOCAL_LENGTH;
	w->data = p;
	w->cap = (uint32_t)len;
	return 0;
}

/*
 * What a SEND/WRITE sends.  Registered memory is read where it is, as
 * each packet goes, and again by a retransmission, as an adapter's DMA
 * reads it (a program reuses a buffer only once its work completion is
 * polled: ibv_post_send(3)): the WQE keeps its gather list.  Inline data
 * is copied, the device's copy of the WQE being gone once it ran.
 */
static int hold_payload(struct req_wqe *w, const struct emu_gather *g)
{
	uint32_t n = 0;
	int err;

	w->in_place = !g->inline_data;
	if (w->in_place) {
		err = reserve(w, (uint64_t)g->n * sizeof(g->c[0]));
		/* no chunk (0 bytes): data may still be NULL */
		if (!err && g->n)
			memcpy(w->data, g->c, g->n * sizeof(g->c[0]));
		w->nchunks = g->n;
		return err;
	}
	err = reserve(w, g->total);
	if (err)
		return err;
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(w->data + n, g->c[i].p, g->c[i].len);
		n += g->c[i].len;
	}
	return 0;
}

/* ---- packets ---- */

static uint8_t send_opcode(const struct req_wqe *w, bool first, bool last)
{
	bool imm = w->opcode == EMU_OP_SEND_IMM || w->opcode == EMU_OP_RDMA_WRITE_IMM;
	bool write = w->opcode == EMU_OP_RDMA_WRITE || w->opcode == EMU_OP_RDMA_WRITE_IMM;

	if (w->opcode == EMU_OP_SEND_INVAL)
		return first && last ? EMU_BOP_SEND_ONLY_INV :
		       last ? EMU_BOP_SEND_LAST_INV : first ? EMU_BOP_SEND_FIRST :
		       EMU_BOP_SEND_MIDDLE;
	if (first && last)
		return write ? (imm ? EMU_BOP_WRITE_ONLY_IMM : EMU_BOP_WRITE_ONLY) :
		       (imm ? EMU_BOP_SEND_ONLY_IMM : EMU_BOP_SEND_ONLY);
	if (first)
		return write ? EMU_BOP_WRITE_FIRST : EMU_BOP_SEND_FIRST;
	if (last)
		return write ? (imm ? EMU_BOP_WRITE_LAST_IMM : EMU_BOP_WRITE_LAST) :
		       (imm ? EMU_BOP_SEND_LAST_IMM : EMU_BOP_SEND_LAST);
	return write ? EMU_BOP_WRITE_MIDDLE : EMU_BOP_SEND_MIDDLE;
}

/* The ranges of registered memory that bytes [off, off + len) of an
 * in-place payload are in, into iov (EMU_MAX_CHUNKS at most); returns
 * how many. */
static int payload_ranges(const struct req_wqe *w, uint64_t off, uint32_t len,
			  struct iovec *iov)
{
	const struct emu_chunk *ch = (const struct emu_chunk *)(const void *)w->data;
	int n = 0;

	for (uint32_t i = 0; i < w->nchunks && len; i++) {
		uint32_t take;

		if (off >= ch[i].len) {
			off -= ch[i].len;
			continue;
		}
		take = ch[i].len - (uint32_t)off < len ? ch[i].len - (uint32_t)off : len;
		iov[n++] = (struct iovec){ (void *)(ch[i].p + off), take };
		off = 0;
		len -= take;
	}
	return n;
}

/* Packet k of a SEND or WRITE; `tr` is the transport bits of the opcode,
 * `data` the payload when it is not in place.  Returns 0, or EFAULT when
 * the memory of an in-place payload could not be read. */
static int send_data_packet(struct emu_conn *c, uint8_t tr, const struct req_wqe *w,
			    const uint8_t *data, uint32_t k)
{
	uint32_t mtu = conn_mtu(c->qp);
	uint64_t off = (uint64_t)k * mtu;
	uint32_t len = w->len - off < mtu ? (uint32_t)(w->len - off) : mtu;
	bool last = k + 1 == w->npkts;
	uint8_t op = (uint8_t)(tr | send_opcode(w, k == 0, last));
	/* an ACK is asked for at the end of a message and every 16 packets */
	bool ack_req = tr == EMU_TR_RC && (last || (k & 15) == 15);
	uint32_t psn = emu_psn_add(w->first_psn, k);
	struct emu_ext_layout l;
	uint8_t ext[EMU_ROCE_HDR_MAX];

	emu_roce_layout(op, &l);
	if (l.reth) {
		struct emu_reth reth = { w->raddr, w->rkey, w->len };

		emu_reth_put(ext + l.reth - EMU_BTH_BYTES, &reth);
	}
	if (l.immdt)
		memcpy(ext + l.immdt - EMU_BTH_BYTES, &w->imm_raw, 4);
	if (l.ieth)
		memcpy(ext + l.ieth - EMU_BTH_BYTES, &w->imm_raw, 4);
	if (w->in_place) {
		struct iovec iov[EMU_MAX_CHUNKS];
		int n = payload_ranges(w, off, len, iov);

		return conn_packet_out_ref(c, c->peer, op, psn, ack_req, last && w->solicited,
					 ext, l.len, iov, n);
	}
	conn_packet_out(c, c->peer, op, psn, ack_req, last && w->solicited, ext, l.len,
		      data + off, len);
	return 0;
}

/*
 * Reading the payload of w faulted: the program unmapped registered
 * memory while the WQE was outstanding.  As for a local error at
 * execution behind outstanding WQEs (adapter/sq.c), w waits in the ring
 * with LOCAL_PROT_ERR and the QP goes to the error state: the flush
 * completes w with that syndrome, the others in order with WR_FLUSH_ERR.
 */
static void payload_fault(struct emu_conn *c, struct req_wqe *w)
{
	EMU_TRACE("QPN 0x%x WQE 0x%04x: registered memory of the payload is no longer mapped: "
		  "local protection error", c->qp->qpn, w->index);
	w->local = true;
	w->syndrome = EMU_SYN_LOCAL_PROT;
	req_enter(c, REQ_ERROR);
	emu_qp_set_error(c->qp);
}

static void send_request(struct emu_conn *c, const struct req_wqe *w, uint32_t k)
{
	uint8_t ext[EMU_ATOMIC_ETH_BYTES];

	if (w->opcode == EMU_OP_RDMA_READ) {
		uint64_t off = (uint64_t)k * conn_mtu(c->qp);
		struct emu_reth reth = { w->raddr + off, w->rkey, (uint32_t)(w->len - off) };

		emu_reth_put(ext, &reth);
		conn_packet_out(c, c->peer, EMU_BOP_READ_REQUEST, emu_psn_add(w->first_psn, k),
			      true, false, ext, EMU_RETH_BYTES, NULL, 0);
	} else {
		struct emu_atomic_eth a = { w->raddr, w->rkey, w->swap_add, w->compare };

		emu_atomic_eth_put(ext, &a);
		conn_packet_out(c, c->peer, w->opcode == EMU_OP_ATOMIC_CS ? EMU_BOP_CMP_SWAP :
			      EMU_BOP_FETCH_ADD, w->first_psn, true, false, ext,
			      EMU_ATOMIC_ETH_BYTES, NULL, 0);
	}
}

static uint64_t ack_timeout_ns(const struct emu_qp *qp)
{
	/* 4.096 us x 2^timeout; 0 waits forever (IBTA 11.2.4.2) */
	return qp->attr.timeout ? 4096ull << (qp->attr.timeout & 31) : 0;
}

/*
 * A READ's response packets take one PSN each and come back as fast as
 * the responder can send them: the requester asks only for responses that
 * fit in its window, as it sends no more data packets than fit, so that
 * a burst of responses never outruns what the window lets the receiver
 * hold.  A READ longer than the window goes when nothing is outstanding.
 */
static bool read_fits(const struct requester *r, const struct req_wqe *w, uint32_t psn)
{
	uint32_t last = emu_psn_add(w->first_psn, w->npkts - 1);

	return w->opcode != EMU_OP_RDMA_READ || psn == r->una_psn ||
	       emu_psn_diff(last, r->una_psn) < (int32_t)r->window.size;
}

/* PSNs a request packet takes in the link credits: a READ one per
 * response packet it asks for, any other one. */
static uint32_t link_psns(const struct req_wqe *w, uint32_t k)
{
	return w->opcode == EMU_OP_RDMA_READ ? w->npkts - k : 1;
}

/* The packet at psn taking n PSNs went out. */
static void sent(struct requester *r, uint32_t psn, uint32_t n)
{
	uint32_t end = emu_psn_add(psn, n);

	if (emu_psn_diff(end, r->sent_end) > 0)
		r->sent_end = end;
}

void req_transmit(struct emu_conn *c, uint64_t now_ns)
{
	struct requester *r = &c->req;
	struct emu_qp *qp = c->qp;
	uint32_t rd_max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	bool any = false, waiting = false;

	conn_link_sync(c);
	if (qp->state == EMU_QPS_ERR)
		req_enter(c, REQ_ERROR);
	if (r->rnr_due_ns || qp->state != EMU_QPS_RTS)
		return;
	while (r->send != r->tail) {
		struct req_wqe *w = &r->ring[r->send & r->ring_mask];
		uint32_t psn = emu_psn_add(w->first_psn, r->send_pkt);
		uint32_t n = link_psns(w, r->send_pkt);

		r->xrc_srqn = w->xrc_srqn;

		if (w->local) {
			r->send++;
			continue;
		}
		if (emu_psn_diff(psn, r->una_psn) >= (int32_t)r->window.size) {
			req_enter(c, REQ_WAIT_WINDOW);
			break;
		}
		if (req_is_rd_atomic(w->opcode) &&
		    (r->rd_atomic >= rd_max || !read_fits(r, w, psn))) {
			req_enter(c, REQ_WAIT_RD_ATOMIC);
			break;
		}
		if (!conn_link_admit(c, psn, n)) {
			req_enter(c, REQ_WAIT_CREDITS);
			waiting = true;
			break;
		}
		req_enter(c, REQ_SEND);
		if (req_is_rd_atomic(w->opcode)) {
			send_request(c, w, r->send_pkt);
			r->rd_atomic++;
			r->send++;
			r->send_pkt = 0;
		} else {
			if (send_data_packet(c, EMU_TR_RC, w, w->data, r->send_pkt)) {
				payload_fault(c, w);
				return;
			}
			if (++r->send_pkt == w->npkts) {
				r->send++;
				r->send_pkt = 0;
			}
		}
		sent(r, psn, n);
		any = true;
	}
	if (r->send == r->tail)
		req_enter(c, REQ_IDLE);
	if (waiting && r->sent_end == r->una_psn && r->retry_due_ns) {
		/* nothing of this QP is on the wire: no ACK is due while it
		 * waits for link credits */
		r->retry_due_ns = 0;
		conn_timer_watch(c);
	}
	if (any && !r->retry_due_ns && ack_timeout_ns(qp)) {
		if (!now_ns)
			now_ns = emu_now_ns();
		r->retry_due_ns = now_ns + ack_timeout_ns(qp);
		conn_timer_watch(c);
	}
}

void req_rewind(struct emu_conn *c, uint32_t psn)
{
	struct requester *r = &c->req;
	uint32_t i;

	req_enter(c, REQ_GO_BACK);
	r->rd_atomic = 0;
	for (i = r->head; i != r->tail; i++) {
		struct req_wqe *w = &r->ring[i & r->ring_mask];

		if (w->local)
			continue;
		if (emu_psn_diff(psn, emu_psn_add(w->first_psn, w->npkts)) < 0)
			break;
		if (req_is_rd_atomic(w->opcode))
			r->rd_atomic++;
	}
	r->send = i;
	r->send_pkt = 0;
	if (i != r->tail) {
		struct req_wqe *w = &r->ring[i & r->ring_mask];
		int32_t k = emu_psn_diff(psn, w->first_psn);

		/* an atomic is one request; a READ resumes where its
		 * responses stopped */
		if (k > 0 && w->opcode != EMU_OP_ATOMIC_CS && w->opcode != EMU_OP_ATOMIC_FA)
			r->send_pkt = (uint32_t)k;
	}
}

/* ---- posting ---- */

/* What the peer's socket is charged for the packets of a UC message
 * (transport/datagram_credits.h). */
static uint64_t uc_charge(const struct req_wqe *w, uint32_t mtu)
{
	uint64_t bytes = 0;

	for (uint32_t k = 0; k < w->npkts; k++) {
		uint64_t off = (uint64_t)k * mtu;
		uint32_t len = w->len - off < mtu ? (uint32_t)(w->len - off) : mtu;
		struct emu_ext_layout l;

		emu_roce_layout((uint8_t)(EMU_TR_UC | send_opcode(w, k == 0, k + 1 == w->npkts)),
				&l);
		bytes += emu_link_truesize(EMU_BTH_BYTES + l.len + len + ((4 - (len & 3)) & 3) +
					   EMU_ICRC_BYTES);
	}
	return bytes;
}

static int uc_post(struct emu_conn *c, const struct emu_conn_msg *m)
{
	struct requester *r = &c->req;
	struct req_wqe w = {
		.opcode = m->opcode,
		.solicited = m->solicited,
		.imm_raw = m->imm_raw,
		.raddr = m->raddr,
		.rkey = m->rkey,
		.len = (uint32_t)m->len,
		.first_psn = r->post_psn,
		.npkts = npkts(m->opcode, m->len, conn_mtu(c->qp)),
	};
	static uint8_t buf[1u << 16];
	const struct emu_gather *g = m->payload;
	uint8_t *data = buf;
	uint32_t n = 0;

	/* the whole message goes at once, or waits whole */
	switch (emu_dgram_credits_take(c->port, c->peer, uc_charge(&w, conn_mtu(c->qp)),
				       c->qp->qpn)) {
	case EAGAIN:
		return EAGAIN;
	case EHOSTUNREACH:
		/* the peer drains nothing: lost on the way, counted */
		emu_link_count_discarded(c->port, w.npkts);
		r->post_psn = emu_psn_add(r->post_psn, w.npkts);
		return 0;
	}
	/* the packets copy the payload; a contiguous view is needed only
	 * for the packet cuts, made here in one pass */
	if (g->total > sizeof(buf)) {
		data = malloc(g->total);
		if (!data)
			return EMU_SYN_LOCAL_LENGTH;
	}
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(data + n, g->c[i].p, g->c[i].len);
		n += g->c[i].len;
	}
	req_enter(c, REQ_SEND);
	for (uint32_t k = 0; k < w.npkts; k++)
		send_data_packet(c, EMU_TR_UC, &w, data, k);
	req_enter(c, REQ_IDLE);
	if (data != buf)
		free(data);
	r->post_psn = emu_psn_add(r->post_psn, w.npkts);
	return 0;
}

int req_post(struct emu_qp *qp, uint32_t addr, const struct emu_conn_msg *m)
{
	struct emu_conn *c = req_conn(qp);
	struct requester *r;
	struct req_wqe *w;
	int err;

	if (!c)
		return EMU_SYN_LOCAL_QP_OP;
	c->peer = addr;
	if (qp->type == EMU_QPT_UC)
		return uc_post(c, m);
	r = &c->req;
	if (r->tail - r->head > r->ring_mask) {
		r->blocked = true;
		return EAGAIN;
	}
	w = &r->ring[r->tail & r->ring_mask];
	w->opcode = m->opcode;
	w->signaled = m->signaled;
	w->solicited = m->solicited;
	w->local = false;
	w->syndrome = 0;
	w->index = m->wqe_index;
	w->imm_raw = m->imm_raw;
	w->raddr = m->raddr;
	w->rkey = m->rkey;
	w->len = (uint32_t)m->len;
	w->swap_add = m->swap_add;
	w->compare = m->compare;
	w->nsegs = m->nsegs;
	w->xrc_srqn = m->xrc_srqn;
	w->in_place = false;
	err = m->payload ? hold_payload(w, m->payload) : reserve(w, m->nsegs * 16u);
	if (err)
		return err;
	if (!m->payload && m->nsegs)
		memcpy(w->data, m->segs, m->nsegs * 16u);
	w->first_psn = r->post_psn;
	w->npkts = npkts(m->opcode, m->len, conn_mtu(qp));
	w->resp_pkts = 0;
	r->post_psn = emu_psn_add(r->post_psn, w->npkts);
	r->tail++;
	req_transmit(c, 0);
	return 0;
}

bool req_queue_local(struct emu_qp *qp, uint16_t wqe_index, uint8_t opcode,
		     uint32_t byte_cnt, bool signaled, uint8_t syndrome)
{
	struct emu_conn *c = qp->conn;
	struct requester *r = c ? &c->req : NULL;
	struct req_wqe *w;

	if (!r || !r->ring || r->head == r->tail || r->tail - r->head > r->ring_mask)
		return false;
	w = &r->ring[r->tail++ & r->ring_mask];
	w->opcode = opcode;
	w->signaled = signaled;
	w->local = true;
	w->syndrome = syndrome;
	w->index = wqe_index;
	w->len = byte_cnt;
	w->npkts = 0;
	return true;
}
