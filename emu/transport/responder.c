// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The responder: request packets from the peer's requester, executed at
 * this adapter's QP in PSN order (IBTA Vol. 1 9.7).
 *
 * RC: a packet at the expected PSN is checked (opcode sequence, lengths,
 * QP access flags, rkey) and executed; SENDs and WRITEs are acknowledged
 * by one coalesced ACK per receive batch, a READ by its responses (one
 * packet per path MTU), an atomic by its ATOMIC ACKNOWLEDGE.  A later PSN
 * gets one NAK PSN sequence error until the expected one arrives; an
 * earlier one is a duplicate: SEND/WRITE re-acknowledged, READ executed
 * again, an atomic answered from the replay cache (never executed
 * twice).  No receive WQE for a SEND or WRITE with immediate: RNR NAK
 * with the QP's min_rnr_timer, nothing changes.  Errors: NAK invalid
 * request (opcode sequence, length, access flags, misaligned atomic),
 * remote access (rkey), remote operational (scatter), and the QP to ERR.
 *
 * UC: a packet with an unexpected PSN ends the message in progress (its
 * receive WQE serves the next one); the rest of a message whose start
 * was lost or had no receive WQE is dropped; errors drop, nothing is sent.
 */
#include "adapter/abi.h"
#include "adapter/engine.h"
#include "adapter/responder.h"
#include "base/trace.h"
#include "transport/link_grants.h"
#include "transport/psn.h"
#include "transport/conn.h"
#include "transport/responder.h"
#include "transport/ack_coalesce.h"
#include "transport/conn_out.h"
#include "transport/xrc_wire.h"
#include "adapter/xrc.h"

enum outcome { DONE, RNR, NAK_INV, NAK_ACCESS, NAK_OP, DROP };

struct req_pkt {
	uint8_t bop;
	uint32_t psn;
	bool se, uc;
	const uint8_t *pkt;
	const struct emu_ext_layout *l;
	const uint8_t *data;
	uint32_t len;
	uint16_t slid;
	bool xrc_bad;		/* XRCETH names no XRC SRQ of the target's domain */
};

void resp_init(struct emu_conn *c)
{
	memset(&c->resp, 0, sizeof(c->resp));
	c->resp.epsn = c->qp->attr.rq_psn & EMU_PSN_MASK;
}

static void send_aeth(struct emu_conn *c, uint8_t syn, uint32_t psn)
{
	uint8_t ext[EMU_AETH_BYTES];

	emu_aeth_put(ext, syn, c->resp.msn);
	conn_packet_out(c, c->peer, EMU_TR_RC | EMU_BOP_ACK, psn, false, false, ext,
		      sizeof(ext), NULL, 0);
	c->resp.ack_pending = false;
}

/* The AETH syndrome of an ACK: the peer's share of this port's buffer. */
static uint8_t ack_syndrome(const struct emu_conn *c)
{
	return EMU_AETH_ACK | emu_link_grant_code(c->port, c->peer, emu_now_ns());
}

void resp_send_ack(struct emu_conn *c)
{
	send_aeth(c, ack_syndrome(c),
		  emu_psn_add(c->resp.epsn, EMU_PSN_MASK));
}

static bool is_send_start(uint8_t bop)
{
	return bop == EMU_BOP_SEND_FIRST || bop == EMU_BOP_SEND_ONLY ||
	       bop == EMU_BOP_SEND_ONLY_IMM || bop == EMU_BOP_SEND_ONLY_INV;
}

static bool is_send_cont(uint8_t bop)
{
	return bop == EMU_BOP_SEND_MIDDLE || bop == EMU_BOP_SEND_LAST ||
	       bop == EMU_BOP_SEND_LAST_IMM || bop == EMU_BOP_SEND_LAST_INV;
}

static bool is_write_start(uint8_t bop)
{
	return bop == EMU_BOP_WRITE_FIRST || bop == EMU_BOP_WRITE_ONLY ||
	       bop == EMU_BOP_WRITE_ONLY_IMM;
}

static bool is_write_cont(uint8_t bop)
{
	return bop == EMU_BOP_WRITE_MIDDLE || bop == EMU_BOP_WRITE_LAST ||
	       bop == EMU_BOP_WRITE_LAST_IMM;
}

static bool is_last(uint8_t bop)
{
	switch (bop) {
	case EMU_BOP_SEND_FIRST:
	case EMU_BOP_SEND_MIDDLE:
	case EMU_BOP_WRITE_FIRST:
	case EMU_BOP_WRITE_MIDDLE:
		return false;
	default:
		return true;
	}
}

/* The opcode may come now: a message in progress is continued, none
 * begun. */
static bool in_sequence(const struct responder *s, uint8_t bop)
{
	if (s->cur == 'S')
		return is_send_cont(bop);
	if (s->cur == 'W')
		return is_write_cont(bop);
	return !is_send_cont(bop) && !is_write_cont(bop);
}

static enum outcome on_send(struct emu_conn *c, const struct req_pkt *k)
{
	struct responder *s = &c->resp;
	struct emu_qp *d = c->qp;
	bool last = is_last(k->bop);
	struct emu_gather g = { 0 };
	uint8_t opc;
	uint32_t imm = 0;
	int syn;

	if (!last && k->len != conn_mtu(d))
		return NAK_INV;
	if (is_send_start(k->bop)) {
		if (!s->have_wqe && !emu_rq_take(d, &s->wqe))
			return k->uc ? DROP : RNR;
		s->have_wqe = true;
		s->off = 0;
	}
	if (s->off)
		emu_gather_add(&g, NULL, (uint32_t)s->off);
	emu_gather_add(&g, k->data, k->len);
	syn = g.n ? emu_scatter(&s->wqe, &g) : 0;
	if (syn) {
		s->have_wqe = false;
		s->cur = 0;
		emu_recv_error_cqe(&s->wqe, (uint8_t)syn);
		return syn == EMU_SYN_LOCAL_LENGTH ? NAK_INV : NAK_OP;
	}
	s->off += k->len;
	if (!last) {
		s->cur = 'S';
		return DONE;
	}
	opc = EMU_RECV_SEND;
	if (k->l->immdt) {
		opc = EMU_RECV_SEND_IMM;
		memcpy(&imm, k->pkt + k->l->immdt, 4);
	} else if (k->l->ieth) {
		opc = EMU_RECV_SEND_INVAL;
		memcpy(&imm, k->pkt + k->l->ieth, 4);
		emu_invalidate_rkey(d, be32toh(imm));
	}
	s->cur = 0;
	s->have_wqe = false;
	s->msn = emu_psn_add(s->msn, 1);
	emu_recv_cqe(&s->wqe, opc, imm, s->off, d->attr.dest_qpn, 0, emu_sl_field(d, d->attr.path.sl),
		     k->slid, 0, k->se);
	return DONE;
}

/* The RETH of a WRITE's first packet or of a READ request, checked against
 * the QP's remote access and mapped through its rkey. A zero-length request
 * maps nothing and is valid (a DMA length of 0 is legal for both): *host is
 * NULL then. */
static enum outcome map_reth(struct emu_qp *d, const struct req_pkt *k, uint32_t access,
			     struct emu_reth *reth, uint8_t **host)
{
	const char *op = access == IBV_ACCESS_REMOTE_READ ? "READ" : "WRITE";

	if (!(d->attr.access & access))
		return NAK_INV;
	emu_reth_get(k->pkt + k->l->reth, reth);
	*host = reth->len ? emu_rkey_map(d, reth->rkey, reth->va, reth->len, access) : NULL;
	if (reth->len && !*host) {
		EMU_TRACE("QPN 0x%x: RDMA %s rkey 0x%x va 0x%llx len %u refused", d->qpn, op,
			  reth->rkey, (unsigned long long)reth->va, reth->len);
		return NAK_ACCESS;
	}
	return DONE;
}

/* The receive WQE at the head of the queue for a WRITE with immediate:
 * the one a UC SEND given up on a gap still holds comes first, as the
 * queue is consumed in order (the next SEND would take it otherwise, and
 * its completion would come after this one's, the wr_ids swapped). */
static bool take_head_wqe(struct responder *s, struct emu_qp *d, struct emu_rwqe *w)
{
	if (s->have_wqe) {
		*w = s->wqe;
		s->have_wqe = false;
		return true;
	}
	return emu_rq_take(d, w);
}

static enum outcome on_write(struct emu_conn *c, const struct req_pkt *k)
{
	struct responder *s = &c->resp;
	struct emu_qp *d = c->qp;
	bool last = is_last(k->bop), imm = k->l->immdt != 0;
	uint8_t *host = s->wr_host;
	uint64_t total = s->wr_len, off = s->off;
	struct emu_rwqe w;

	if (is_write_start(k->bop)) {
		struct emu_reth reth;
		enum outcome o = map_reth(d, k, IBV_ACCESS_REMOTE_WRITE, &reth, &host);

		if (o != DONE)
			return o;
		total = reth.len;
		off = 0;
	}
	if ((!last && k->len != conn_mtu(d)) || off + k->len > total ||
	    (last && off + k->len != total))
		return NAK_INV;
	/* the receive WQE first: an RNR NAK changes nothing */
	if (last && imm && !take_head_wqe(s, d, &w))
		return k->uc ? DROP : RNR;
	if (k->len)
		memcpy(host + off, k->data, k->len);
	s->wr_host = host;
	s->wr_len = total;
	s->off = off + k->len;
	s->cur = last ? 0 : 'W';
	if (!last)
		return DONE;
	s->msn = emu_psn_add(s->msn, 1);
	if (imm) {
		uint32_t imm_raw;

		memcpy(&imm_raw, k->pkt + k->l->immdt, 4);
		emu_recv_cqe(&w, EMU_RECV_RDMA_WRITE_IMM, imm_raw, total, d->attr.dest_qpn, 0,
			     emu_sl_field(d, d->attr.path.sl), k->slid, 0, k->se);
	}
	return DONE;
}

/* READ responses for [psn ...): the request's RETH names what is left. */
static enum outcome on_read(struct emu_conn *c, const struct req_pkt *k, bool dup)
{
	struct emu_qp *d = c->qp;
	uint32_t mtu = conn_mtu(d), n;
	struct emu_reth reth;
	uint8_t *host;
	uint8_t ext[EMU_AETH_BYTES];

	enum outcome o = map_reth(d, k, IBV_ACCESS_REMOTE_READ, &reth, &host);

	if (o != DONE)
		return o;
	n = reth.len ? (uint32_t)(((uint64_t)reth.len + mtu - 1) / mtu) : 1;
	if (!dup) {
		c->resp.msn = emu_psn_add(c->resp.msn, 1);
		c->resp.epsn = emu_psn_add(c->resp.epsn, n);
		c->resp.nak_sent = false;
	}
	emu_aeth_put(ext, ack_syndrome(c), c->resp.msn);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = reth.len - i * mtu < mtu ? reth.len - i * mtu : mtu;
		uint8_t bop = n == 1 ? EMU_BOP_READ_RESP_ONLY :
			      i == 0 ? EMU_BOP_READ_RESP_FIRST :
			      i + 1 == n ? EMU_BOP_READ_RESP_LAST : EMU_BOP_READ_RESP_MIDDLE;

		/* copied, not handed to the kernel in place: the ICRC must
		 * cover the bytes sent, and this memory may change before the
		 * queue is flushed (the program's stores, a WRITE or atomic
		 * taken later in this batch); a fault in the copy fails the
		 * QP (resp_fault, transport.c) */
		conn_packet_out(c, c->peer, EMU_TR_RC | bop, emu_psn_add(k->psn, i), false,
			      false, ext, bop == EMU_BOP_READ_RESP_MIDDLE ? 0 : sizeof(ext),
			      host ? host + (uint64_t)i * mtu : NULL, len);
	}
	c->resp.ack_pending = false;
	return DONE;
}

static void send_atomic_ack(struct emu_conn *c, uint32_t psn, uint64_t orig)
{
	uint8_t ext[EMU_AETH_BYTES + EMU_ATOMIC_ACK_ETH_BYTES];

	emu_aeth_put(ext, ack_syndrome(c), c->resp.msn);
	emu_atomic_ack_eth_put(ext + EMU_AETH_BYTES, orig);
	conn_packet_out(c, c->peer, EMU_TR_RC | EMU_BOP_ATOMIC_ACK, psn, false, false,
		      ext, sizeof(ext), NULL, 0);
	c->resp.ack_pending = false;
}

static enum outcome on_atomic(struct emu_conn *c, const struct req_pkt *k)
{
	struct responder *s = &c->resp;
	struct emu_qp *d = c->qp;
	struct emu_atomic_eth a;
	uint64_t operand[4] = { 0 }, orig;
	uint8_t *p;

	emu_atomic_eth_get(k->pkt + k->l->atomic_eth, &a);
	if (!(d->attr.access & IBV_ACCESS_REMOTE_ATOMIC) || (a.va & 7))
		return NAK_INV;
	p = emu_rkey_map(d, a.rkey, a.va, 8, IBV_ACCESS_REMOTE_ATOMIC);
	if (!p)
		return NAK_ACCESS;
	operand[0] = a.swap_add;
	operand[1] = a.compare;
	orig = emu_atomic_apply(k->bop == EMU_BOP_CMP_SWAP ? EMU_OP_ATOMIC_CS : EMU_OP_ATOMIC_FA,
				p, operand);
	s->replay[s->replay_next].valid = true;
	s->replay[s->replay_next].psn = k->psn;
	s->replay[s->replay_next].orig = orig;
	s->replay_next = (s->replay_next + 1) % EMU_RESP_REPLAY;
	s->msn = emu_psn_add(s->msn, 1);
	send_atomic_ack(c, k->psn, orig);
	return DONE;
}

static enum outcome execute(struct emu_conn *c, const struct req_pkt *k)
{
	if (k->xrc_bad)
		return NAK_INV;
	if (!in_sequence(&c->resp, k->bop))
		return k->uc ? DROP : NAK_INV;
	if (is_send_start(k->bop) || is_send_cont(k->bop))
		return on_send(c, k);
	if (is_write_start(k->bop) || is_write_cont(k->bop))
		return on_write(c, k);
	if (k->bop == EMU_BOP_READ_REQUEST)
		return on_read(c, k, false);
	return on_atomic(c, k);
}

/* An RC request with a PSN already executed. */
static void duplicate(struct emu_conn *c, const struct req_pkt *k)
{
	struct responder *s = &c->resp;

	if (k->bop == EMU_BOP_READ_REQUEST) {
		on_read(c, k, true);
		return;
	}
	if (k->bop == EMU_BOP_CMP_SWAP || k->bop == EMU_BOP_FETCH_ADD) {
		for (unsigned i = 0; i < EMU_RESP_REPLAY; i++)
			if (s->replay[i].valid && s->replay[i].psn == k->psn) {
				send_atomic_ack(c, k->psn, s->replay[i].orig);
				return;
			}
		return;	/* older than the cache: its ACK was long seen */
	}
	conn_ack_later(c);
}

static uint8_t nak_code(enum outcome o)
{
	return o == NAK_ACCESS ? EMU_NAK_REMOTE_ACCESS :
	       o == NAK_OP ? EMU_NAK_REMOTE_OP : EMU_NAK_INVALID_REQ;
}

static void rc_request(struct emu_conn *c, const struct req_pkt *k)
{
	struct responder *s = &c->resp;
	int32_t d = emu_psn_diff(k->psn, s->epsn);
	enum outcome o;

	if (d > 0) {
		resp_enter(c, RESP_OUT_OF_SEQUENCE);
		if (!s->nak_sent) {
			s->nak_sent = true;
			send_aeth(c, EMU_AETH_NAK | EMU_NAK_PSN_SEQ, s->epsn);
		}
		return;
	}
	if (d < 0) {
		resp_enter(c, RESP_DUPLICATE);
		duplicate(c, k);
		return;
	}
	o = execute(c, k);
	switch (o) {
	case DONE:
		resp_enter(c, RESP_EXECUTE);
		if (k->bop == EMU_BOP_READ_REQUEST)
			return;	/* epsn moved by the READ's PSN range */
		s->epsn = emu_psn_add(s->epsn, 1);
		s->nak_sent = false;
		if (k->bop != EMU_BOP_CMP_SWAP && k->bop != EMU_BOP_FETCH_ADD)
			conn_ack_later(c);
		return;
	case RNR:
		resp_enter(c, RESP_RNR_NAK);
		send_aeth(c, EMU_AETH_RNR_NAK | (c->qp->attr.min_rnr_timer & 0x1f), k->psn);
		return;
	default:
		resp_enter(c, RESP_NAK);
		send_aeth(c, EMU_AETH_NAK | nak_code(o), k->psn);
		emu_qp_set_error(c->qp);
		return;
	}
}

static void uc_request(struct emu_conn *c, const struct req_pkt *k)
{
	struct responder *s = &c->resp;

	if (k->psn != s->epsn) {
		/* packets were lost: the message in progress is given up */
		resp_enter(c, RESP_UC_GAP);
		s->cur = 0;
		s->epsn = k->psn;
	}
	s->epsn = emu_psn_add(k->psn, 1);
	if (execute(c, k) == DONE) {
		resp_enter(c, RESP_EXECUTE);
	} else {
		resp_enter(c, RESP_UC_DROP);
		s->cur = 0;
	}
}

void resp_receive(struct emu_conn *c, const struct emu_rx *rx,
		  const struct emu_bth *bth, const struct emu_ext_layout *l)
{
	uint32_t hl = EMU_BTH_BYTES + l->len;
	bool eth = emu_cfg.link_layer[c->port - 1] == EMU_LL_ETH;
	struct req_pkt k = {
		.bop = bth->opcode & 0x1f,
		.psn = bth->psn,
		.se = bth->se,
		.uc = (bth->opcode & 0xe0) == EMU_TR_UC,
		.pkt = rx->pkt,
		.l = l,
		.slid = eth ? 0 : (uint16_t)(rx->src & 0xffff),
	};

	if (rx->len < hl + bth->pad)
		return;
	/* an XRC request receives on the SRQ it names */
	k.xrc_bad = emu_qp_is_xrc_tgt(c->qp) && !emu_xrc_wire_bind(c->qp, rx->pkt, l);
	k.data = rx->pkt + hl;
	k.len = (uint32_t)(rx->len - hl - bth->pad);
	if (k.uc)
		uc_request(c, &k);
	else
		rc_request(c, &k);
}

void resp_fault(struct emu_conn *c)
{
	resp_enter(c, RESP_ERROR);
	c->resp.cur = 0;
	c->resp.have_wqe = false;
	if (c->qp->type != EMU_QPT_UC) {
		send_aeth(c, EMU_AETH_NAK | EMU_NAK_REMOTE_OP, c->resp.epsn);
		emu_qp_set_error(c->qp);
	}
}
