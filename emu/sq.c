// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Send queue execution.  The WQE at WQEBB counter n is the device's when
 * bit 31 of its first big-endian word equals (n & wqe_cnt) != 0 (libmlx4
 * qp.c).  A WQE is ds 16-byte units long and may span several WQEBBs,
 * wrapping at the ring end; the counter advances by the WQEBBs it uses.
 * Segments by QP type: RC/UC ctrl, [raddr], [atomic], data or inline;
 * UD ctrl, datagram (48 bytes), data; raw packet ctrl, [LSO], data.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cq.h"
#include "objects.h"
#include "wqe.h"

#define WQE_MAX 1024	/* 63 x 16 bytes, rounded */

struct send_op {
	struct emu_qp *qp;
	const uint8_t *w;	/* local copy of the WQE */
	uint32_t size;		/* ds * 16 */
	uint8_t opcode;
	uint32_t srcrb;
	uint32_t imm_raw;	/* word 3 as stored (big-endian) */
	uint16_t index;		/* WQEBB counter of the first WQEBB */
	uint32_t off;		/* first byte after the fixed segments */
	uint64_t byte_cnt;	/* reported in the send CQE */
	uint8_t syndrome, vendor;
	bool stall;		/* RNR: retry later */
	bool from_bf;		/* taken from the BlueFlame buffer */
};

static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void strict_fail(struct send_op *op, uint8_t vendor, const char *rule)
{
	op->syndrome = EMU_SYN_LOCAL_QP_OP;
	op->vendor = vendor;
	EMU_CTR_INC(strict_errors);
	if (emu_cfg.debug)
		emu_trace("QPN 0x%x WQE 0x%04x opcode 0x%02x: %s", op->qp->qpn,
			  op->index, op->opcode, rule);
}

void emu_qp_set_error(struct emu_qp *qp)
{
	if (qp->state == EMU_QPS_ERR)
		return;
	qp->state = EMU_QPS_ERR;
	qp->rnr_tries = 0;
	EMU_TRACE("QPN 0x%x moved to the error state", qp->qpn);
	if (qp->srq && !emu_async_event(qp->ctx, qp->user_handle,
					IBV_EVENT_QP_LAST_WQE_REACHED))
		qp->async_events++;
}

/* ---- gather list of the WQE's data part ---- */

static int parse_inline(struct send_op *op, struct emu_gather *g)
{
	uint32_t off = op->off;

	while (op->size - off >= 4) {
		uint32_t h = ld_be32(op->w + off);
		uint32_t len = h & 0x7fffffff;

		if (!(h & EMU_INLINE_SEG) || off + 4 + len > op->size) {
			/* padding up to the 16-byte end of the WQE */
			if (g->n && op->size - off < 16)
				break;
			strict_fail(op, EMU_VSYN_BAD_DS,
				    "ds does not match the inline segments");
			return -1;
		}
		if ((off & 63) + 4 + len > 64) {
			strict_fail(op, EMU_VSYN_INLINE_CROSSES_64B,
				    "inline segment crosses a 64-byte boundary");
			return -1;
		}
		if (emu_gather_add(g, op->w + off + 4, len)) {
			strict_fail(op, EMU_VSYN_BAD_DS, "too many inline segments");
			return -1;
		}
		off += 4 + len;
		/* Writers (libmlx4 qp.c, <infiniband/mlx4dv.h>) open a new
		 * segment only at a 64-byte boundary: one that stops short of
		 * its chunk is the last, and what follows up to the end of the
		 * WQE is padding, stale bytes of older WQEs that may look like
		 * a header. */
		if (off & 63) {
			if (op->size - off >= 16) {
				strict_fail(op, EMU_VSYN_BAD_DS,
					    "ds does not match the inline segments");
				return -1;
			}
			break;
		}
	}
	return 0;
}

static int parse_data_segs(struct send_op *op, struct emu_gather *g)
{
	struct emu_qp *qp = op->qp;

	if ((op->size - op->off) % 16) {
		strict_fail(op, EMU_VSYN_BAD_DS, "ds does not match the data segments");
		return -1;
	}
	for (uint32_t off = op->off; off < op->size; off += 16) {
		uint32_t bc = ld_be32(op->w + off);
		uint32_t lkey = ld_be32(op->w + off + 4);
		uint64_t addr = ld_be64(op->w + off + 8);
		uint32_t len = bc ? bc & 0x7fffffff : 0x80000000u;
		struct emu_key *k;
		uint8_t *p;

		if (bc == EMU_INLINE_SEG || !len)
			continue;	/* zero-length SGE */
		k = emu_key_lookup(lkey);
		p = (k && k->kind == EMU_KEY_MR && k->pdn == qp->pdn) ?
		    emu_key_map(k, addr, len) : NULL;
		if (!p) {
			op->syndrome = EMU_SYN_LOCAL_PROT;
			EMU_TRACE("QPN 0x%x WQE 0x%04x: lkey 0x%x addr 0x%llx len %u not accessible",
				  qp->qpn, op->index, lkey, (unsigned long long)addr, len);
			return -1;
		}
		emu_gather_add(g, p, len);
	}
	return 0;
}

static int gather(struct send_op *op, struct emu_gather *g)
{
	uint32_t first;

	g->n = 0;
	g->total = 0;
	if (op->off >= op->size)
		return 0;
	first = ld_be32(op->w + op->off);
	if ((first & EMU_INLINE_SEG) && first != EMU_INLINE_SEG)
		return parse_inline(op, g);
	return parse_data_segs(op, g);
}

/* ---- remote side ---- */

static bool can_receive(const struct emu_qp *qp)
{
	return qp->state >= EMU_QPS_RTR && qp->state <= EMU_QPS_SQE;
}

/* RC/UC peer; NULL when there is none the packets could reach. */
static struct emu_qp *connected_peer(struct emu_qp *qp)
{
	struct emu_qp *d = emu_qp_by_qpn(qp->dest_qpn);

	if (!d || d->is_wq || d->is_rss || d->type != qp->type || !can_receive(d))
		return NULL;
	return d;
}

static void responder_error(struct emu_qp *d)
{
	if (d->type == EMU_QPT_RC)
		emu_qp_set_error(d);
}

/* No receive WQE at an RC responder: RNR NAK, retried per rnr_retry. */
static void rnr_nak(struct send_op *op, struct emu_qp *d, uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	uint64_t wait_us = rnr_timer_us[d->min_rnr_timer & 31];

	EMU_CTR_INC(rnr_naks);
	if (qp->rnr_retry != 7 && qp->rnr_tries >= qp->rnr_retry) {
		op->syndrome = EMU_SYN_RNR_RETRY_EXC;
		EMU_TRACE("QPN 0x%x WQE 0x%04x: RNR retries exhausted (%u)", qp->qpn,
			  op->index, qp->rnr_retry);
		return;
	}
	qp->rnr_tries++;
	if (wait_us > emu_cfg.rnr_cap_us)
		wait_us = emu_cfg.rnr_cap_us;
	if (!*now_ns)
		*now_ns = emu_now_ns();
	qp->rnr_due_ns = *now_ns + wait_us * 1000;
	op->stall = true;
}

static uint16_t port_lid(uint8_t port)
{
	if (port < 1 || port > emu_cfg.ports || emu_cfg.link_layer[port - 1] == EMU_LL_ETH)
		return 0;
	return port;
}

static void recv_cqe(const struct emu_rwqe *w, uint8_t opcode, uint32_t imm_raw,
		     uint64_t len, uint32_t src_qpn, uint32_t g_ml, uint16_t sl_vid,
		     uint16_t slid, uint32_t status, bool solicited)
{
	struct emu_cqe c;

	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(w->qp->qpn);
	c.immed_rss_invalid = imm_raw;
	c.g_mlpath_rqpn = htobe32((src_qpn & 0xffffff) | g_ml);
	c.sl_vid = htobe16(sl_vid);
	c.rlid = htobe16(slid);
	c.status = htobe32(status);
	c.byte_cnt = htobe32((uint32_t)len);
	c.wqe_index = htobe16(w->wqe_index);
	emu_cqe_write(w->cq, &c, opcode, solicited);
}

static void recv_error_cqe(const struct emu_rwqe *w, uint8_t syndrome)
{
	emu_cqe_write_error(w->cq, w->qp->qpn, false, w->wqe_index, syndrome, 0);
	emu_qp_set_error(w->qp);
}

static uint16_t sl_field(const struct emu_qp *d, uint8_t sl)
{
	bool eth = d->port >= 1 && d->port <= emu_cfg.ports &&
		   emu_cfg.link_layer[d->port - 1] == EMU_LL_ETH;

	return (uint16_t)(eth ? (sl & 7) << 13 : (sl & 15) << 12);
}

static void invalidate_remote(struct emu_qp *d, uint32_t rkey)
{
	struct emu_key *k = emu_key_lookup(rkey);

	if (k && k->kind == EMU_KEY_MW2 && k->pdn == d->pdn)
		k->valid = false;
}

static void exec_send_rc_uc(struct send_op *op, const struct emu_gather *g,
			    uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	struct emu_qp *d = connected_peer(qp);
	struct emu_rwqe w;
	uint8_t ropc;
	int syn;

	op->byte_cnt = g->total;
	if (!d) {
		if (qp->type == EMU_QPT_RC)
			op->syndrome = EMU_SYN_RETRY_EXC;
		return;
	}
	if (!emu_rq_take(d, &w)) {
		if (qp->type == EMU_QPT_RC)
			rnr_nak(op, d, now_ns);
		return;
	}
	qp->rnr_tries = 0;
	syn = emu_scatter(&w, g);
	if (syn) {
		recv_error_cqe(&w, (uint8_t)syn);
		if (qp->type == EMU_QPT_RC)
			op->syndrome = syn == EMU_SYN_LOCAL_LENGTH ?
				EMU_SYN_REMOTE_INVAL_REQ : EMU_SYN_REMOTE_OP;
		return;
	}
	ropc = op->opcode == EMU_OP_SEND_IMM ? EMU_RECV_SEND_IMM :
	       op->opcode == EMU_OP_SEND_INVAL ? EMU_RECV_SEND_INVAL : EMU_RECV_SEND;
	if (op->opcode == EMU_OP_SEND_INVAL)
		invalidate_remote(d, be32toh(op->imm_raw));
	recv_cqe(&w, ropc, op->opcode == EMU_OP_SEND ? 0 : op->imm_raw, g->total,
		 qp->qpn, 0, sl_field(d, qp->path.sl), port_lid(qp->port), 0,
		 op->srcrb & EMU_CTRL_SOLICIT);
}

/* The rkey check of RDMA and atomics at the responder. */
static uint8_t *remote_map(struct send_op *op, struct emu_qp *d, uint32_t rkey,
			   uint64_t va, uint64_t len, uint32_t need)
{
	struct emu_key *k = emu_key_lookup(rkey);
	uint8_t *p;

	if (!k || k->kind == EMU_KEY_FREE || k->pdn != d->pdn || !(k->access & need) ||
	    (k->kind == EMU_KEY_MW2 && k->bind_qpn != d->qpn))
		p = NULL;
	else
		p = emu_key_map(k, va, len ? len : 1);
	if (!p) {
		EMU_TRACE("QPN 0x%x WQE 0x%04x: rkey 0x%x va 0x%llx len %llu refused by QPN 0x%x",
			  op->qp->qpn, op->index, rkey, (unsigned long long)va,
			  (unsigned long long)len, d->qpn);
		if (op->qp->type == EMU_QPT_RC) {
			op->syndrome = EMU_SYN_REMOTE_ACCESS;
			responder_error(d);
		}
	}
	return p;
}

static bool qp_allows(struct send_op *op, struct emu_qp *d, uint32_t flag)
{
	if (d->access & flag)
		return true;
	if (op->qp->type == EMU_QPT_RC) {
		op->syndrome = EMU_SYN_REMOTE_INVAL_REQ;
		responder_error(d);
	}
	return false;
}

static void exec_write(struct send_op *op, const struct emu_gather *g,
		       uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	struct emu_qp *d = connected_peer(qp);
	uint64_t raddr = ld_be64(op->w + 16);
	uint32_t rkey = ld_be32(op->w + 24);
	struct emu_rwqe w;
	uint8_t *dst;

	op->byte_cnt = g->total;
	if (!d) {
		if (qp->type == EMU_QPT_RC)
			op->syndrome = EMU_SYN_RETRY_EXC;
		return;
	}
	if (!qp_allows(op, d, IBV_ACCESS_REMOTE_WRITE))
		return;
	dst = g->total ? remote_map(op, d, rkey, raddr, g->total,
				    IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (g->total && !dst)
		return;
	if (op->opcode == EMU_OP_RDMA_WRITE_IMM && !emu_rq_take(d, &w)) {
		if (qp->type == EMU_QPT_RC)
			rnr_nak(op, d, now_ns);
		return;
	}
	qp->rnr_tries = 0;
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(dst, g->c[i].p, g->c[i].len);
		dst += g->c[i].len;
	}
	if (op->opcode == EMU_OP_RDMA_WRITE_IMM)
		recv_cqe(&w, EMU_RECV_RDMA_WRITE_IMM, op->imm_raw, g->total, qp->qpn, 0,
			 sl_field(d, qp->path.sl), port_lid(qp->port), 0,
			 op->srcrb & EMU_CTRL_SOLICIT);
}

static void exec_read(struct send_op *op)
{
	struct emu_qp *qp = op->qp;
	struct emu_qp *d = connected_peer(qp);
	uint64_t raddr = ld_be64(op->w + 16);
	uint32_t rkey = ld_be32(op->w + 24);
	uint32_t nsegs = (op->size - op->off) / 16;
	struct emu_gather g = { 0 };
	uint64_t len = 0;
	uint8_t *src;
	int syn;

	if ((op->size - op->off) % 16) {
		strict_fail(op, EMU_VSYN_BAD_DS, "ds does not match the data segments");
		return;
	}
	for (uint32_t i = 0; i < nsegs; i++) {
		uint32_t bc = ld_be32(op->w + op->off + i * 16);

		if (bc != EMU_INLINE_SEG)
			len += bc ? bc & 0x7fffffff : 0x80000000u;
	}
	op->byte_cnt = len;
	if (!d) {
		op->syndrome = EMU_SYN_RETRY_EXC;
		return;
	}
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

/* Fetch-and-add where set mask bits end a field: no carry out of them. */
static uint64_t masked_add(uint64_t a, uint64_t b, uint64_t field_ends)
{
	uint64_t r = 0, carry = 0;

	for (int i = 0; i < 64; i++) {
		uint64_t s = ((a >> i) & 1) + ((b >> i) & 1) + carry;

		r |= (s & 1) << i;
		carry = (field_ends >> i) & 1 ? 0 : s >> 1;
	}
	return r;
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
	uint64_t old, val;
	uint8_t *p;
	struct emu_gather g = { 0 };

	if (op->size != 32 + aseg + 16) {
		strict_fail(op, EMU_VSYN_BAD_DS,
			    "ds does not match raddr + atomic + one data segment");
		return;
	}
	op->off = 32 + aseg;
	op->byte_cnt = 8;
	d = connected_peer(qp);
	if (!d) {
		op->syndrome = EMU_SYN_RETRY_EXC;
		return;
	}
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
	memcpy(&old, p, 8);
	switch (op->opcode) {
	case EMU_OP_ATOMIC_CS:
		val = old == ld_be64(a + 8) ? ld_be64(a) : old;
		break;
	case EMU_OP_ATOMIC_FA:
		val = old + ld_be64(a);
		break;
	case EMU_OP_MASKED_ATOMIC_CS: {
		uint64_t swap = ld_be64(a), cmp = ld_be64(a + 8);
		uint64_t swap_mask = ld_be64(a + 16), cmp_mask = ld_be64(a + 24);

		val = ((old ^ cmp) & cmp_mask) ? old :
		      (old & ~swap_mask) | (swap & swap_mask);
		break;
	}
	default:
		val = masked_add(old, ld_be64(a), ld_be64(a + 8));
		break;
	}
	memcpy(p, &val, 8);
	emu_gather_add(&g, (const uint8_t *)&old, 8);
	if (emu_scatter_segs(qp->pdn, op->w + op->off, 1, &g, NULL))
		op->syndrome = EMU_SYN_LOCAL_PROT;
}

static void exec_local_inval(struct send_op *op)
{
	uint32_t key = ld_be32(op->w + 16 + 8);
	struct emu_key *k = emu_key_lookup(key);

	if (op->size < 48) {
		strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for local invalidate");
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
		strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for bind");
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

/* ---- UD ---- */

/*
 * IPoIB over UD: a message that starts with the 4-byte encapsulation
 * header of IPv4/IPv6 gets the checksums the send WQE asks for filled in
 * (in a copy appended to `rg`) and its receive checksum status computed,
 * as a ConnectX-3 does for IPoIB.  Returns the CQE status bits, with
 * 1u << 31 set when the copy was appended (no status bit uses it).
 */
static uint32_t ipoib_offload(const struct send_op *op, const struct emu_gather *g,
			      struct emu_gather *rg)
{
	static uint8_t msg[4096];
	uint32_t n = 0;

	if (!g->n || g->c[0].len < 2 || g->total > sizeof(msg) ||
	    !((g->c[0].p[0] == 0x08 && g->c[0].p[1] == 0x00) ||
	      (g->c[0].p[0] == 0x86 && g->c[0].p[1] == 0xdd)))
		return 0;
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(msg + n, g->c[i].p, g->c[i].len);
		n += g->c[i].len;
	}
	if (op->srcrb & (EMU_CTRL_IP_CSUM | EMU_CTRL_TCP_UDP_CSUM))
		emu_ipoib_fill_checksums(msg, n, op->srcrb & EMU_CTRL_IP_CSUM,
					 op->srcrb & EMU_CTRL_TCP_UDP_CSUM);
	emu_gather_add(rg, msg, n);
	return emu_ipoib_rx_status(msg, n) | 1u << 31;
}

static void exec_ud_send(struct send_op *op, const struct emu_gather *g)
{
	struct emu_qp *qp = op->qp;
	const uint8_t *av = op->w + 16;
	uint32_t dqpn = ld_be32(av + 32) & 0xffffff;
	uint32_t qkey = ld_be32(av + 36);
	bool eth = emu_cfg.link_layer[(qp->port ? qp->port : 1) - 1] == EMU_LL_ETH;
	bool grh = eth || (av[5] & 0x80);
	uint32_t mtu = eth ? 1024 : 4096;
	uint8_t grh_bytes[EMU_GRH_BYTES];
	struct emu_gather rg = { 0 };
	struct emu_qp *d;
	struct emu_rwqe w;
	uint32_t sltf = ld_be32(av + 12);
	uint32_t status;
	int syn;

	op->byte_cnt = g->total;
	if (g->total > mtu) {
		op->syndrome = EMU_SYN_LOCAL_LENGTH;
		return;
	}
	if (qkey & 0x80000000u)
		qkey = qp->qkey;	/* use the QP's own Q_Key */
	d = emu_qp_by_qpn(dqpn);
	/* datagrams that reach nobody are dropped, the send still succeeds */
	if (!d || d->type != EMU_QPT_UD || !can_receive(d) || d->qkey != qkey ||
	    d->port != qp->port || !emu_rq_take(d, &w))
		return;
	if (grh) {
		uint8_t sgid[16];

		emu_port_gid(qp->port ? qp->port : 1, sgid);
		memset(grh_bytes, 0, sizeof(grh_bytes));
		grh_bytes[0] = (uint8_t)(0x60 | ((sltf >> 24) & 0x0f));
		grh_bytes[1] = (uint8_t)((sltf >> 16) & 0xff);
		grh_bytes[2] = (uint8_t)((sltf >> 8) & 0xff);
		grh_bytes[3] = (uint8_t)(sltf & 0xff);
		grh_bytes[4] = (uint8_t)(g->total >> 8);
		grh_bytes[5] = (uint8_t)g->total;
		grh_bytes[6] = 0x1b;	/* next header: IB BTH */
		grh_bytes[7] = av[11];	/* hop limit */
		if (av[9] == 0)
			memcpy(grh_bytes + 8, sgid, 16);
		memcpy(grh_bytes + 24, av + 16, 16);
		emu_gather_add(&rg, grh_bytes, EMU_GRH_BYTES);
	} else {
		/* without a GRH the first 40 bytes are left as they were */
		rg.c[0].p = NULL;
		rg.c[0].len = EMU_GRH_BYTES;
		rg.n = 1;
		rg.total = EMU_GRH_BYTES;
	}
	status = eth ? 0 : ipoib_offload(op, g, &rg);
	if (!(status & 1u << 31))
		for (uint32_t i = 0; i < g->n; i++)
			emu_gather_add(&rg, g->c[i].p, g->c[i].len);
	status &= ~(1u << 31);
	syn = emu_scatter(&w, &rg);
	if (syn) {
		recv_error_cqe(&w, (uint8_t)syn);
		return;
	}
	recv_cqe(&w, op->opcode == EMU_OP_SEND_IMM ? EMU_RECV_SEND_IMM : EMU_RECV_SEND,
		 op->opcode == EMU_OP_SEND_IMM ? op->imm_raw : htobe32(d->pkey_index),
		 rg.total, qp->qpn, grh ? 0x80000000u : 0,
		 sl_field(d, (uint8_t)(sltf >> (eth ? 29 : 28))), port_lid(qp->port),
		 status, op->srcrb & EMU_CTRL_SOLICIT);
}

/* ---- decoding ---- */

static bool opcode_ok(uint8_t type, uint8_t op)
{
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
		strict_fail(op, EMU_VSYN_BAD_DS, "LSO segment does not fit ds");
		return;
	}
	op->off += seg;
	if (gather(op, g))
		return;
	op->byte_cnt = g->total + hdr_len;
	emu_eth_send(op->qp, g, op->srcrb, op->w + op->off - seg + 4, hdr_len, mss,
		     vlan_insert(op));
}

static void execute(struct send_op *op, uint64_t *now_ns)
{
	struct emu_qp *qp = op->qp;
	struct emu_gather g;

	if (!opcode_ok(qp->type, op->opcode)) {
		strict_fail(op, EMU_VSYN_BAD_OPCODE, "opcode not valid for this QP type");
		return;
	}
	op->off = 16;
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
			strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for the raddr segment");
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
			strict_fail(op, EMU_VSYN_BAD_DS, "ds too small for the datagram segment");
			return;
		}
		op->off = 64;
	}
	if (op->opcode == EMU_OP_LSO) {
		exec_lso(op, &g);
		return;
	}
	if (gather(op, &g))
		return;
	if (g.total > 0x40000000u) {
		op->syndrome = EMU_SYN_LOCAL_LENGTH;
		return;
	}
	switch (qp->type) {
	case EMU_QPT_UD:
		exec_ud_send(op, &g);
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

/* ---- the queue ---- */

static inline uint8_t *sq_slot(const struct emu_qp *qp, uint32_t n)
{
	return qp->buf + qp->sq_off + ((size_t)(n & (qp->sq_cnt - 1)) << qp->sq_shift);
}

static inline bool slot_valid(const struct emu_qp *qp, uint32_t n)
{
	uint32_t w0 = be32toh(__atomic_load_n((uint32_t *)sq_slot(qp, n),
					      __ATOMIC_ACQUIRE));

	return (w0 >> 31) == ((n & qp->sq_cnt) ? 1u : 0u);
}

/* Copies the WQE at counter n (which may span WQEBBs and wrap). */
static uint32_t copy_wqe(const struct emu_qp *qp, uint32_t n, uint8_t *dst,
			 uint32_t *nbb)
{
	uint32_t stride = 1u << qp->sq_shift;
	uint32_t ds = sq_slot(qp, n)[7] & 0x3f;
	uint32_t size = ds * 16, done = 0;

	*nbb = size > stride ? (size + stride - 1) >> qp->sq_shift : 1;
	if (*nbb > qp->sq_cnt) {
		*nbb = 1;
		size = stride;
	}
	while (done < size) {
		uint32_t k = size - done < stride ? size - done : stride;

		memcpy(dst + done, sq_slot(qp, n + done / stride), k);
		done += k;
	}
	if (!size)
		memcpy(dst, sq_slot(qp, n), 16);
	return size;
}

static bool beyond_headroom(const struct emu_qp *qp, uint32_t n)
{
	uint32_t far;
	const uint8_t *s;
	uint32_t w0;

	if (qp->sq_cnt <= qp->sq_spare)
		return false;
	far = n + qp->sq_cnt - qp->sq_spare;
	s = sq_slot(qp, far);
	w0 = ld_be32(s);
	return w0 != 0xffffffffu && (w0 >> 31) == ((far & qp->sq_cnt) ? 1u : 0u) &&
	       (s[7] & 0x3f) && opcode_ok(qp->type, w0 & 0x1f);
}

static void complete(struct send_op *op)
{
	struct emu_qp *qp = op->qp;
	struct emu_cqe c;

	if (op->syndrome) {
		emu_cqe_write_error(qp->scq, qp->qpn, true, op->index, op->syndrome,
				    op->vendor);
		emu_qp_set_error(qp);
		return;
	}
	if ((op->srcrb & EMU_CTRL_CQ_UPDATE) != EMU_CTRL_CQ_UPDATE)
		return;
	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(qp->qpn);
	c.byte_cnt = htobe32((uint32_t)op->byte_cnt);
	c.wqe_index = htobe16(op->index);
	emu_cqe_write(qp->scq, &c, (uint8_t)(EMU_CQE_IS_SEND | op->opcode), false);
}

static int flush_rq(struct emu_qp *qp)
{
	struct emu_rwqe w;
	int n = 0;

	if (qp->srq || !qp->rq_cnt || !qp->rcq)
		return 0;
	while (n < 64 && emu_rq_take(qp, &w)) {
		emu_cqe_write_error(w.cq, qp->qpn, false, w.wqe_index,
				    EMU_SYN_WR_FLUSH, 0);
		n++;
	}
	return n;
}

static int flush_sq(struct emu_qp *qp, int budget)
{
	int n = 0;

	while (n < budget && slot_valid(qp, qp->sq_pc)) {
		uint32_t ds = sq_slot(qp, qp->sq_pc)[7] & 0x3f;
		uint32_t stride = 1u << qp->sq_shift;
		uint32_t nbb = ds * 16 > stride ? (ds * 16 + stride - 1) / stride : 1;

		emu_cqe_write_error(qp->scq, qp->qpn, true, (uint16_t)qp->sq_pc,
				    EMU_SYN_WR_FLUSH, 0);
		qp->sq_pc += nbb;
		n++;
	}
	return n;
}

int emu_qp_process(struct emu_qp *qp, int budget, uint64_t *now_ns, int *pending)
{
	uint8_t wbuf[WQE_MAX + 64] __attribute__((aligned(64)));
	int work = 0;

	if (qp->is_rss)
		return 0;
	if (qp->state == EMU_QPS_ERR)
		work += flush_rq(qp);
	if (qp->is_wq || !qp->scq)
		return work;
	if (qp->state == EMU_QPS_ERR || qp->state == EMU_QPS_SQE)
		return work + flush_sq(qp, budget);
	if (qp->state != EMU_QPS_RTS)
		return work;
	if (qp->rnr_tries) {
		if (!*now_ns)
			*now_ns = emu_now_ns();
		if (*now_ns < qp->rnr_due_ns) {
			(*pending)++;
			return work;
		}
	}
	while (work < budget) {
		struct send_op op = { .qp = qp, .w = wbuf, .index = (uint16_t)qp->sq_pc };
		uint32_t nbb = 1, w0;
		bool from_bf = false;

		if (!slot_valid(qp, qp->sq_pc)) {
			if (!qp->bf_pending || qp->bf_counter != (qp->sq_pc & 0xffff))
				break;
			from_bf = true;
		}
		op.from_bf = from_bf;
		if (from_bf) {
			op.size = (qp->bf_copy[7] & 0x3f) * 16;
			memcpy(wbuf, qp->bf_copy, sizeof(qp->bf_copy));
			qp->bf_pending = false;
			/* the WQE still owns the WQEBBs its size covers */
			nbb = (op.size + (1u << qp->sq_shift) - 1) >> qp->sq_shift;
			if (!nbb)
				nbb = 1;
		} else {
			op.size = copy_wqe(qp, qp->sq_pc, wbuf, &nbb);
		}
		w0 = ld_be32(wbuf);
		op.opcode = w0 & 0x1f;
		op.srcrb = ld_be32(wbuf + 8);
		memcpy(&op.imm_raw, wbuf + 12, 4);
		if (qp->fault_cqe_at && qp->wqes_done + 1 == qp->fault_cqe_at) {
			op.syndrome = qp->fault_syndrome;
			op.vendor = EMU_VSYN_FAULT;
			qp->fault_cqe_at = 0;
			EMU_TRACE("QPN 0x%x WQE 0x%04x: injected error CQE, syndrome 0x%02x",
				  qp->qpn, op.index, op.syndrome);
		} else if (!op.size) {
			strict_fail(&op, EMU_VSYN_DS_ZERO, "WQE with ds 0");
		} else if (!from_bf && beyond_headroom(qp, qp->sq_pc)) {
			strict_fail(&op, EMU_VSYN_BEYOND_HEADROOM,
				    "WQE posted beyond the free slots (SQ headroom used)");
		} else {
			execute(&op, now_ns);
			if (op.stall) {
				(*pending)++;
				break;
			}
		}
		complete(&op);
		qp->sq_pc += nbb;
		qp->wqes_done++;
		work++;
		EMU_CTR_INC(wqes);
		if (qp->fault_err_after && qp->wqes_done >= qp->fault_err_after) {
			qp->fault_err_after = 0;
			EMU_TRACE("QPN 0x%x: injected move to the error state", qp->qpn);
			emu_qp_set_error(qp);
		}
		if (qp->state != EMU_QPS_RTS)
			break;
	}
	return work;
}

/*
 * BlueFlame: libmlx4 copies a small WQE (with the WQE counter in word 0
 * bits 8..23 and the doorbell QPN in word 1) to the BlueFlame buffer after
 * writing it to the ring.  A post seen only in the BlueFlame buffer is
 * captured here and executed when the QP's counter reaches it.  The page
 * holds EMU_BF_REGS_PER_PAGE registers of two buffers each, as GET_CONTEXT
 * reports; libmlx4 uses register 0, a direct-verbs library may use others.
 */
void emu_ctx_poll_bf(struct emu_ctx *ctx)
{
	uint32_t half = emu_cfg.bf_reg_size / 2;

	if (!ctx->bf_page || !half)
		return;
	for (int h = 0; h < 2 * EMU_BF_REGS_PER_PAGE; h++) {
		const uint8_t *bf = ctx->bf_page + h * half;
		uint8_t head[16], again[16];
		uint32_t w0, qpn, counter, size;
		struct emu_qp *qp;

		memcpy(head, bf, 16);
		if (!memcmp(head, ctx->bf_last[h], 16))
			continue;
		w0 = ld_be32(head);
		qpn = ld_be32(head + 4) >> 8;
		counter = (w0 >> 8) & 0xffff;
		size = (head[7] & 0x3f) * 16;
		qp = emu_qp_by_qpn(qpn);
		if (!qp || qp->ctx != ctx || qp->is_wq || !size || size > half) {
			memcpy(ctx->bf_last[h], head, 16);
			continue;
		}
		if (counter == (qp->sq_pc & 0xffff) && !slot_valid(qp, qp->sq_pc) &&
		    (w0 >> 31) == ((qp->sq_pc & qp->sq_cnt) ? 1u : 0u)) {
			memcpy(qp->bf_copy, bf, size);
			memcpy(again, bf, 16);
			if (memcmp(again, head, 16) || memcmp(qp->bf_copy, bf, size))
				continue;	/* still being written */
			qp->bf_pending = true;
			qp->bf_counter = counter;
			memcpy(ctx->bf_last[h], head, 16);
			EMU_CTR_INC(bf_wqes);
		} else if (((qp->sq_pc - counter) & 0xffff) < 0x8000) {
			/* the same WQE is (or was) executed from the ring */
			memcpy(ctx->bf_last[h], head, 16);
			EMU_CTR_INC(bf_wqes);
		}
	}
}
