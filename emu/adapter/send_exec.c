// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Execution of one send WQE by opcode: SEND/RDMA/atomics to a connected
 * peer QP of this adapter, UD datagrams (ud.c), raw Ethernet, memory windows and
 * local invalidation.  Responder-side errors follow the table of
 * emu/README.md (the requester's syndrome, and the responder QP to ERR).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "adapter/cq.h"
#include "adapter/engine.h"
#include "adapter/events.h"
#include "adapter/objects.h"
#include "adapter/remote.h"
#include "adapter/responder.h"
#include "adapter/send.h"
#include "adapter/xrc.h"
#include "wire/identity.h"

static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* ---- remote side ---- */

bool emu_qp_remote_addr(const struct emu_qp *qp, uint32_t *addr)
{
	unsigned port = qp->attr.path.port_num ? qp->attr.path.port_num : (qp->attr.port ? qp->attr.port : 1);
	bool eth = port <= emu_cfg.ports && emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
	bool ok = eth ? emu_gid_to_addr(qp->attr.path.dgid, addr) :
		  emu_lid_to_addr(port, qp->attr.path.dlid, addr);

	return ok && !emu_addr_is_self(*addr);
}

static bool path_is_remote(const struct emu_qp *qp)
{
	uint32_t addr;

	return emu_qp_remote_addr(qp, &addr);
}

/* The requester is reliable (RC, XRC initiator): it sees NAKs and
 * retries; UC requests that fail are dropped. */
static bool reliable(const struct emu_qp *qp)
{
	return qp->type == EMU_QPT_RC || qp->type == EMU_QPT_XRC_INI;
}

/* RC/UC/XRC peer; NULL when there is none the packets could reach. */
static struct emu_qp *connected_peer(struct emu_qp *qp)
{
	struct emu_qp *d = path_is_remote(qp) ? NULL : emu_qp_by_dest_qpn(qp->attr.dest_qpn);
	uint8_t peer_type = qp->type == EMU_QPT_XRC_INI ? EMU_QPT_XRC_TGT : qp->type;

	if (!d || d->is_wq || d->is_rss || d->type != peer_type || !emu_qp_can_receive(d))
		return NULL;
	return d;
}

static void responder_error(struct emu_qp *d)
{
	if (d->type == EMU_QPT_RC || d->type == EMU_QPT_XRC_TGT)
		emu_qp_set_error(d);
}

/*
 * The responder of a connected request: the peer QP and, for XRC, the
 * XRC SRQ the WQE names (control segment bits 8..31 of srcrb_flags,
 * libmlx4 MLX4_REMOTE_SRQN_FLAGS).  NULL when the request reaches
 * nobody, with the requester's syndrome set: no peer is RETRY_EXC_ERR on
 * a reliable QP; an SRQ that is not an XRC SRQ of the target's domain is
 * an invalid request (REMOTE_INVAL_REQ_ERR, the target QP to ERR).
 */
static struct emu_qp *responder(struct send_op *op)
{
	struct emu_qp *d = connected_peer(op->qp);

	if (!d) {
		if (reliable(op->qp))
			op->syndrome = EMU_SYN_RETRY_EXC;
		return NULL;
	}
	if (!emu_qp_is_xrc_tgt(d))
		return d;
	if (!emu_xrc_bind(d, op->srcrb >> 8)) {
		EMU_TRACE("QPN 0x%x WQE 0x%04x: SRQ 0x%x is not an XRC SRQ of the domain of QPN 0x%x",
			  op->qp->qpn, op->index, op->srcrb >> 8, emu_qp_number(d));
		op->syndrome = EMU_SYN_REMOTE_INVAL_REQ;
		responder_error(d);
		return NULL;
	}
	return d;
}

/* No receive WQE at an RC responder: RNR NAK, retried per rnr_retry. */
static void rnr_nak(struct send_op *op, struct emu_qp *d, uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	uint64_t wait_us = rnr_timer_us[d->attr.min_rnr_timer & 31];

	EMU_CTR_INC(rnr_naks);
	if (qp->attr.rnr_retry != 7 && qp->sq.rnr_tries >= qp->attr.rnr_retry) {
		op->syndrome = EMU_SYN_RNR_RETRY_EXC;
		EMU_TRACE("QPN 0x%x WQE 0x%04x: RNR retries exhausted (%u)", qp->qpn,
			  op->index, qp->attr.rnr_retry);
		return;
	}
	qp->sq.rnr_tries++;
	if (wait_us > emu_cfg.rnr_cap_us)
		wait_us = emu_cfg.rnr_cap_us;
	if (!*now_ns)
		*now_ns = emu_now_ns();
	qp->sq.rnr_due_ns = *now_ns + wait_us * 1000;
	op->stall = true;
}

static void exec_send_rc_uc(struct send_op *op, const struct emu_gather *g,
			    uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	struct emu_qp *d;
	struct emu_rwqe w;
	uint8_t ropc;
	int syn;

	op->byte_cnt = g->total;
	d = responder(op);
	if (!d)
		return;
	if (!emu_rq_take(d, &w)) {
		if (reliable(qp))
			rnr_nak(op, d, now_ns);
		return;
	}
	qp->sq.rnr_tries = 0;
	syn = emu_scatter(&w, g);
	if (syn) {
		emu_recv_error_cqe(&w, (uint8_t)syn);
		if (reliable(qp))
			op->syndrome = syn == EMU_SYN_LOCAL_LENGTH ?
				EMU_SYN_REMOTE_INVAL_REQ : EMU_SYN_REMOTE_OP;
		return;
	}
	ropc = op->opcode == EMU_OP_SEND_IMM ? EMU_RECV_SEND_IMM :
	       op->opcode == EMU_OP_SEND_INVAL ? EMU_RECV_SEND_INVAL : EMU_RECV_SEND;
	if (op->opcode == EMU_OP_SEND_INVAL)
		emu_invalidate_rkey(d, be32toh(op->imm_raw));
	emu_recv_cqe(&w, ropc, op->opcode == EMU_OP_SEND ? 0 : op->imm_raw, g->total,
		 qp->qpn, 0, emu_sl_field(d, qp->attr.path.sl), emu_port_lid(qp->attr.port), 0,
		 op->srcrb & EMU_CTRL_SOLICIT);
}

/* The rkey check of RDMA and atomics at the responder. */
static uint8_t *remote_map(struct send_op *op, struct emu_qp *d, uint32_t rkey,
			   uint64_t va, uint64_t len, uint32_t need)
{
	uint8_t *p = emu_rkey_map(d, rkey, va, len, need);

	if (!p) {
		EMU_TRACE("QPN 0x%x WQE 0x%04x: rkey 0x%x va 0x%llx len %llu refused by QPN 0x%x",
			  op->qp->qpn, op->index, rkey, (unsigned long long)va,
			  (unsigned long long)len, d->qpn);
		if (reliable(op->qp)) {
			op->syndrome = EMU_SYN_REMOTE_ACCESS;
			responder_error(d);
		}
	}
	return p;
}

static bool qp_allows(struct send_op *op, struct emu_qp *d, uint32_t flag)
{
	if (d->attr.access & flag)
		return true;
	if (reliable(op->qp)) {
		op->syndrome = EMU_SYN_REMOTE_INVAL_REQ;
		responder_error(d);
	}
	return false;
}

static void exec_write(struct send_op *op, const struct emu_gather *g,
		       uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	uint64_t raddr = ld_be64(op->w + 16);
	uint32_t rkey = ld_be32(op->w + 24);
	struct emu_qp *d;
	struct emu_rwqe w;
	uint8_t *dst;

	op->byte_cnt = g->total;
	d = responder(op);
	if (!d)
		return;
	if (!qp_allows(op, d, IBV_ACCESS_REMOTE_WRITE))
		return;
	dst = g->total ? remote_map(op, d, rkey, raddr, g->total,
				    IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (g->total && !dst)
		return;
	if (op->opcode == EMU_OP_RDMA_WRITE_IMM && !emu_rq_take(d, &w)) {
		if (reliable(qp))
			rnr_nak(op, d, now_ns);
		return;
	}
	qp->sq.rnr_tries = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(dst, g->c[i].p, g->c[i].len);
		dst += g->c[i].len;
	}
	if (op->opcode == EMU_OP_RDMA_WRITE_IMM)
		emu_recv_cqe(&w, EMU_RECV_RDMA_WRITE_IMM, op->imm_raw, g->total, qp->qpn, 0,
			 emu_sl_field(d, qp->attr.path.sl), emu_port_lid(qp->attr.port), 0,
			 op->srcrb & EMU_CTRL_SOLICIT);
}

static void exec_read(struct send_op *op)
{
	struct emu_qp *qp = op->qp;
	struct emu_qp *d;
	uint64_t raddr = ld_be64(op->w + 16);
	uint32_t rkey = ld_be32(op->w + 24);
	uint32_t nsegs = (op->size - op->off) / 16;
	struct emu_gather g = { 0 };
	uint64_t len = 0;
	uint8_t *src;
	int syn;

	if ((op->size - op->off) % 16) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds does not match the data segments");
		return;
	}
	for (uint32_t i = 0; i < nsegs; i++) {
		uint32_t bc = ld_be32(op->w + op->off + i * 16);

		if (bc != EMU_INLINE_SEG)
			len += bc ? bc & 0x7fffffff : 0x80000000u;
	}
	op->byte_cnt = len;
	d = responder(op);
	if (!d)
		return;
	if (!qp_allows(op, d, IBV_ACCESS_REMOTE_READ))
		return;
	src = len ? remote_map(op, d, rkey, raddr, len, IBV_ACCESS_REMOTE_READ) : NULL;
	if (len && !src)
		return;
	emu_gather_add(&g, src, (uint32_t)len);
	syn = emu_scatter_segs(qp->pdn, op->w + op->off, nsegs, &g, NULL);
	if (syn)
		op->syndrome = EMU_SYN_LOCAL_PROT;
}

static void exec_atomic(struct send_op *op)
{
	struct emu_qp *qp = op->qp;
	struct emu_qp *d;
	/* Only masked CAS has the 32-byte segment; masked FA uses the plain
	 * 16-byte one with the field mask in its compare word (kernel mlx4_ib
	 * qp.c set_atomic_seg, IB_WR_MASKED_ATOMIC_FETCH_AND_ADD). */
	uint32_t aseg = op->opcode == EMU_OP_MASKED_ATOMIC_CS ? 32 : 16;
	uint64_t raddr = ld_be64(op->w + 16);
	uint32_t rkey = ld_be32(op->w + 24);
	const uint8_t *a = op->w + 32;
	uint64_t old, operand[4];
	uint8_t *p;
	struct emu_gather g = { 0 };

	if (op->size != 32 + aseg + 16) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS,
			    "ds does not match raddr + atomic + one data segment");
		return;
	}
	op->off = 32 + aseg;
	op->byte_cnt = 8;
	d = responder(op);
	if (!d)
		return;
	if (!qp_allows(op, d, IBV_ACCESS_REMOTE_ATOMIC))
		return;
	if (raddr & 7) {
		op->syndrome = EMU_SYN_REMOTE_INVAL_REQ;
		responder_error(d);
		return;
	}
	p = remote_map(op, d, rkey, raddr, 8, IBV_ACCESS_REMOTE_ATOMIC);
	if (!p)
		return;
	for (int i = 0; i < 4; i++)
		operand[i] = i * 8u < aseg ? ld_be64(a + i * 8) : 0;
	old = emu_atomic_apply(op->opcode, p, operand);
	emu_gather_add(&g, (const uint8_t *)&old, 8);
	if (emu_scatter_segs(qp->pdn, op->w + op->off, 1, &g, NULL))
		op->syndrome = EMU_SYN_LOCAL_PROT;
}

static void exec_local_inval(struct send_op *op)
{
	uint32_t key = ld_be32(op->w + 16 + 8);
	struct emu_key *k = emu_key_lookup(key);

	if (op->size < 48) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for local invalidate");
		return;
	}
	if (!k || k->kind != EMU_KEY_MW2 || k->pdn != op->qp->pdn) {
		op->syndrome = EMU_SYN_LOCAL_PROT;
		return;
	}
	k->valid = false;
}

static void exec_bind(struct send_op *op)
{
	const uint8_t *b = op->w + 16;
	uint32_t flags1 = ld_be32(b), flags2 = ld_be32(b + 4);
	uint32_t new_rkey = ld_be32(b + 8), lkey = ld_be32(b + 12);
	uint64_t addr = ld_be64(b + 16), len = ld_be64(b + 24);
	struct emu_key *mr = emu_key_lookup(lkey);
	struct emu_key *mw;
	bool type2 = flags2 & (1u << 31), zero_based = flags2 & (1u << 30);
	uint32_t idx = new_rkey >> 8;
	uint8_t *host;

	if (op->size < 48) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for bind");
		return;
	}
	mw = idx < emu_dev.nkeys ? &emu_dev.keys[idx] : NULL;
	host = mr ? emu_key_map(mr, addr, len ? len : 1) : NULL;
	if (!mr || mr->kind != EMU_KEY_MR || !(mr->access & IBV_ACCESS_MW_BIND) ||
	    mr->pdn != op->qp->pdn || (len && !host) || !mw ||
	    mw->kind != (type2 ? EMU_KEY_MW2 : EMU_KEY_MW1) || mw->pdn != op->qp->pdn ||
	    (type2 && mw->valid)) {
		op->syndrome = EMU_SYN_MW_BIND;
		return;
	}
	mw->key = new_rkey;
	mw->iova = zero_based ? 0 : addr;
	mw->length = len;
	mw->host = host ? host : mr->host;
	mw->access = ((flags1 & (1u << 31)) ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
		     ((flags1 & (1u << 30)) ? IBV_ACCESS_REMOTE_WRITE : 0) |
		     ((flags1 & (1u << 29)) ? IBV_ACCESS_REMOTE_READ : 0);
	mw->bind_qpn = type2 ? op->qp->qpn : 0;
	mw->valid = len != 0 || type2;
}

/* ---- to another adapter ---- */

/* Bytes the data segments of a READ ask for (a length of 0 means 2 GB). */
static uint64_t segs_len(const uint8_t *segs, uint32_t nsegs)
{
	uint64_t len = 0;

	for (uint32_t i = 0; i < nsegs; i++) {
		uint32_t bc = ld_be32(segs + i * 16);

		if (bc != EMU_INLINE_SEG)
			len += bc ? bc & 0x7fffffff : 0x80000000u;
	}
	return len;
}

/* Decodes the WQE into a message for the transport; false when a strict
 * check or the gather refused it (op->syndrome set). */
static bool remote_msg(struct send_op *op, struct emu_conn_msg *m, struct emu_gather *g)
{
	switch (op->opcode) {
	case EMU_OP_RDMA_READ:
		if ((op->size - op->off) % 16) {
			emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds does not match the data segments");
			return false;
		}
		m->segs = op->w + op->off;
		m->nsegs = (op->size - op->off) / 16;
		m->len = segs_len(m->segs, m->nsegs);
		return true;
	case EMU_OP_ATOMIC_CS:
	case EMU_OP_ATOMIC_FA:
		if (op->size != 64) {
			emu_send_strict_fail(op, EMU_VSYN_BAD_DS,
				    "ds does not match raddr + atomic + one data segment");
			return false;
		}
		m->swap_add = ld_be64(op->w + 32);
		m->compare = ld_be64(op->w + 40);
		m->segs = op->w + 48;
		m->nsegs = 1;
		m->len = 8;
		return true;
	case EMU_OP_MASKED_ATOMIC_CS:
	case EMU_OP_MASKED_ATOMIC_FA:
		emu_send_strict_fail(op, EMU_VSYN_BAD_OPCODE,
			    "masked atomics reach only QPs of this adapter");
		return false;
	default:
		if (emu_send_gather(op, g))
			return false;
		if (g->total > 0x80000000u) {
			op->syndrome = EMU_SYN_LOCAL_LENGTH;
			return false;
		}
		m->payload = g;
		m->len = g->total;
		return true;
	}
}

/* A message of an RC/UC QP whose path leads to another adapter (the
 * local operations run here either way). */
static bool goes_remote(const struct send_op *op, uint32_t *addr)
{
	uint8_t t = op->qp->type, opc = op->opcode;

	return (reliable(op->qp) || t == EMU_QPT_UC) && emu_remote && opc != EMU_OP_NOP &&
	       opc != EMU_OP_LOCAL_INVAL && opc != EMU_OP_BIND_MW && emu_qp_remote_addr(op->qp, addr);
}

/* Bytes of the control, remote address and atomic segments. */
static uint32_t fixed_segs_bytes(uint8_t opcode)
{
	switch (opcode) {
	case EMU_OP_RDMA_WRITE:
	case EMU_OP_RDMA_WRITE_IMM:
	case EMU_OP_RDMA_READ:
		return 32;
	case EMU_OP_ATOMIC_CS:
	case EMU_OP_ATOMIC_FA:
	case EMU_OP_MASKED_ATOMIC_FA:
		return 48;
	case EMU_OP_MASKED_ATOMIC_CS:
		return 64;
	default:
		return 16;
	}
}

/* An RC/UC message to another adapter: handed to the transport, which
 * completes an RC WQE when its ACK arrives. */
static void exec_remote(struct send_op *op, uint32_t addr)
{
	struct emu_qp *qp = op->qp;
	struct emu_conn_msg m = {
		.opcode = op->opcode,
		.wqe_index = op->index,
		.signaled = (op->srcrb & EMU_CTRL_CQ_UPDATE) == EMU_CTRL_CQ_UPDATE,
		.solicited = op->srcrb & EMU_CTRL_SOLICIT,
		.imm_raw = op->imm_raw,
		.xrc_srqn = qp->type == EMU_QPT_XRC_INI ? op->srcrb >> 8 : 0,
	};
	uint32_t fixed = fixed_segs_bytes(op->opcode);
	struct emu_gather g;
	int rc;

	if (op->size < fixed) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for the raddr segment");
		return;
	}
	if (fixed > 16) {
		op->off = 32;
		m.raddr = ld_be64(op->w + 16);
		m.rkey = ld_be32(op->w + 24);
	}
	if (!remote_msg(op, &m, &g))
		return;
	op->byte_cnt = m.len;
	rc = emu_remote->conn_post(qp, addr, &m);
	if (rc == EAGAIN)
		op->blocked = true;
	else if (rc)
		op->syndrome = (uint8_t)rc;
	else if (reliable(qp))
		op->deferred = true;
}

/* ---- decoding ---- */

bool emu_send_opcode_ok(uint8_t type, uint8_t op)
{
	/* an XRC initiator has the opcodes of an RC requester */
	if (type == EMU_QPT_XRC_INI)
		type = EMU_QPT_RC;
	switch (op) {
	case EMU_OP_NOP:
		return true;
	case EMU_OP_SEND:
		return true;
	case EMU_OP_SEND_IMM:
		return type != EMU_QPT_RAW;
	case EMU_OP_LSO:
		/* LSO of UD (IPoIB) is not emulated: refused, not dropped */
		return type == EMU_QPT_RAW;
	case EMU_OP_RDMA_WRITE:
	case EMU_OP_RDMA_WRITE_IMM:
	case EMU_OP_LOCAL_INVAL:
	case EMU_OP_BIND_MW:
		return type == EMU_QPT_RC || type == EMU_QPT_UC;
	case EMU_OP_SEND_INVAL:
	case EMU_OP_RDMA_READ:
	case EMU_OP_ATOMIC_CS:
	case EMU_OP_ATOMIC_FA:
	case EMU_OP_MASKED_ATOMIC_CS:
	case EMU_OP_MASKED_ATOMIC_FA:
		return type == EMU_QPT_RC;
	default:
		return false;
	}
}

/*
 * VLAN insertion of a raw Ethernet send: control segment bytes 4..5 are
 * the tag, byte 6 bit 6 asks for an 802.1Q (C-VLAN) and bit 7 for an
 * 802.1ad (S-VLAN) tag.  A BlueFlame post carries the doorbell QPN in
 * bytes 4..6 instead, and libmlx4 leaves that QPN in the ring slot, where
 * a later post in the same slot finds it: bytes equal to the QP's own
 * doorbell QPN, or with any of byte 6's low bits set, ask for nothing.
 * Returns TPID << 16 | TCI, or 0.
 */
static uint32_t vlan_insert(const struct send_op *op)
{
	uint32_t qpn_bytes = op->qp->qpn & 0xffffff;
	uint32_t b = (uint32_t)op->w[4] << 16 | (uint32_t)op->w[5] << 8 | op->w[6];
	uint8_t ins = op->w[6];

	if (op->from_bf || !(ins & 0xc0) || (ins & 0x3f) || b == qpn_bytes)
		return 0;
	return (ins & 0x80 ? 0x88a8u : 0x8100u) << 16 | (uint32_t)op->w[4] << 8 | op->w[5];
}

static void exec_lso(struct send_op *op, struct emu_gather *g)
{
	uint32_t mss_hdr = ld_be32(op->w + op->off);
	uint32_t hdr_len = mss_hdr & 0xffff, mss = (mss_hdr >> 16) & 0x3fff;
	uint32_t seg = (4 + hdr_len + 15) & ~15u;

	if (op->off + seg > op->size || !mss || !hdr_len) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "LSO segment does not fit ds");
		return;
	}
	op->off += seg;
	if (emu_send_gather(op, g))
		return;
	/* more payload than the device's max_tso: refused whole (no frame
	 * leaves), never cut short */
	if (g->total > emu_hca.max_tso) {
		op->syndrome = EMU_SYN_LOCAL_LENGTH;
		return;
	}
	op->byte_cnt = g->total + hdr_len;
	emu_eth_send(op->qp, g, op->srcrb, op->w + op->off - seg + 4, hdr_len, mss,
		     vlan_insert(op));
}

void emu_send_execute(struct send_op *op, uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	struct emu_gather g;
	uint32_t addr;

	if (!emu_send_opcode_ok(qp->type, op->opcode)) {
		emu_send_strict_fail(op, EMU_VSYN_BAD_OPCODE, "opcode not valid for this QP type");
		return;
	}
	op->off = 16;
	if (goes_remote(op, &addr)) {
		exec_remote(op, addr);
		return;
	}
	switch (op->opcode) {
	case EMU_OP_NOP:
		return;
	case EMU_OP_LOCAL_INVAL:
		exec_local_inval(op);
		return;
	case EMU_OP_BIND_MW:
		exec_bind(op);
		return;
	case EMU_OP_ATOMIC_CS:
	case EMU_OP_ATOMIC_FA:
	case EMU_OP_MASKED_ATOMIC_CS:
	case EMU_OP_MASKED_ATOMIC_FA:
		exec_atomic(op);
		return;
	default:
		break;
	}
	if (op->opcode == EMU_OP_RDMA_WRITE || op->opcode == EMU_OP_RDMA_WRITE_IMM ||
	    op->opcode == EMU_OP_RDMA_READ) {
		if (op->size < 32) {
			emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for the raddr segment");
			return;
		}
		op->off = 32;
		if (op->opcode == EMU_OP_RDMA_READ) {
			exec_read(op);
			return;
		}
	}
	if (qp->type == EMU_QPT_UD) {
		if (op->size < 64) {
			emu_send_strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for the datagram segment");
			return;
		}
		op->off = 64;
	}
	if (op->opcode == EMU_OP_LSO) {
		exec_lso(op, &g);
		return;
	}
	if (emu_send_gather(op, &g))
		return;
	if (g.total > 0x40000000u) {
		op->syndrome = EMU_SYN_LOCAL_LENGTH;
		return;
	}
	switch (qp->type) {
	case EMU_QPT_UD:
		emu_send_ud(op, &g);
		break;
	case EMU_QPT_RAW:
		op->byte_cnt = g.total;
		emu_eth_send(qp, &g, op->srcrb, NULL, 0, 0, vlan_insert(op));
		break;
	default:
		if (op->opcode == EMU_OP_RDMA_WRITE || op->opcode == EMU_OP_RDMA_WRITE_IMM)
			exec_write(op, &g, now_ns);
		else
			exec_send_rc_uc(op, &g, now_ns);
		break;
	}
}
