// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD sends and their delivery: the send WQE's datagram segment (address
 * vector, remote QPN, Q_Key) names the destination; a QP of this adapter
 * gets the message at once, another adapter's through the transport.
 */
#include <errno.h>
#include <string.h>

#include "adapter/cq.h"
#include "adapter/mcast.h"
#include "adapter/remote.h"
#include "adapter/responder.h"
#include "adapter/send.h"
#include "adapter/objects.h"
#include "adapter/port.h"
#include "wire/identity.h"

const struct emu_remote_ops *emu_remote;

void emu_remote_register(const struct emu_remote_ops *ops)
{
	emu_remote = ops;
}

void emu_remote_qp_modified(struct emu_qp *qp, int cur, int next)
{
	if (emu_remote && emu_remote->qp_modified)
		emu_remote->qp_modified(qp, cur, next);
}

void emu_remote_qp_destroyed(struct emu_qp *qp)
{
	if (emu_remote && emu_remote->qp_destroyed)
		emu_remote->qp_destroyed(qp);
}

/*
 * IPoIB over UD: a message that starts with the 4-byte encapsulation
 * header of IPv4/IPv6 gets the checksums the send WQE asks for filled in
 * (in a copy appended to `rg`) and its receive checksum status computed,
 * as a ConnectX-3 does for IPoIB.  Returns the CQE status bits, with
 * 1u << 31 set when the copy was appended (no status bit uses it).
 */
static uint32_t ipoib_offload(const struct emu_ud_msg *m, struct emu_gather *rg)
{
	static uint8_t msg[4096];
	const struct emu_gather *g = m->payload;
	uint32_t n = 0;

	if (!g->n || g->c[0].len < 2 || g->total > sizeof(msg) ||
	    !((g->c[0].p[0] == 0x08 && g->c[0].p[1] == 0x00) ||
	      (g->c[0].p[0] == 0x86 && g->c[0].p[1] == 0xdd)))
		return 0;
	for (uint32_t i = 0; i < g->n; i++) {
		memcpy(msg + n, g->c[i].p, g->c[i].len);
		n += g->c[i].len;
	}
	if (m->ipoib_csum_ip || m->ipoib_csum_l4)
		emu_ipoib_fill_checksums(msg, n, m->ipoib_csum_ip, m->ipoib_csum_l4);
	emu_gather_add(rg, msg, n);
	return emu_ipoib_rx_status(msg, n) | 1u << 31;
}

static void put_grh(uint8_t *grh, const struct emu_ud_msg *m, uint64_t len)
{
	memset(grh, 0, EMU_GRH_BYTES);
	grh[0] = (uint8_t)(0x60 | ((m->tclass_flow >> 24) & 0x0f));
	grh[1] = (uint8_t)(m->tclass_flow >> 16);
	grh[2] = (uint8_t)(m->tclass_flow >> 8);
	grh[3] = (uint8_t)m->tclass_flow;
	grh[4] = (uint8_t)(len >> 8);
	grh[5] = (uint8_t)len;
	grh[6] = 0x1b;	/* next header: IB BTH */
	grh[7] = m->hop_limit;
	memcpy(grh + 8, m->sgid, 16);
	memcpy(grh + 24, m->dgid, 16);
}

enum emu_ud_fate emu_ud_deliver(struct emu_qp *d, const struct emu_ud_msg *m)
{
	bool eth = emu_cfg.link_layer[(d->attr.port ? d->attr.port : 1) - 1] == EMU_LL_ETH;
	const struct emu_gather *g = m->payload;
	uint8_t grh[EMU_GRH_BYTES];
	struct emu_gather rg = { 0 };
	struct emu_rwqe w;
	uint32_t status;
	int syn;

	/* datagrams that reach nobody are dropped, the send still succeeds */
	if (d->is_wq || d->is_rss || d->type != EMU_QPT_UD || d->attr.port != m->port ||
	    !emu_qp_can_receive(d) || d->attr.qkey != m->qkey)
		return EMU_UD_NOT_FOR_QP;
	if (!emu_rq_take(d, &w)) {
		emu_port_count_ud_no_wqe(d->attr.port ? d->attr.port : 1);
		return EMU_UD_NO_WQE;
	}
	if (m->grh) {
		put_grh(grh, m, g->total);
		emu_gather_add(&rg, grh, EMU_GRH_BYTES);
	} else {
		/* without a GRH the first 40 bytes are left as they were */
		rg.c[0].p = NULL;
		rg.c[0].len = EMU_GRH_BYTES;
		rg.n = 1;
		rg.total = EMU_GRH_BYTES;
	}
	status = eth ? 0 : ipoib_offload(m, &rg);
	if (!(status & 1u << 31))
		for (uint32_t i = 0; i < g->n; i++)
			emu_gather_add(&rg, g->c[i].p, g->c[i].len);
	status &= ~(1u << 31);
	syn = emu_scatter(&w, &rg);
	if (syn == EMU_SYN_LOCAL_LENGTH) {
		/*
		 * A datagram longer than the receive WQE is the sender's
		 * error, and on UD the sender is anyone with the Q_Key: the
		 * WQE completes with a local length error and the QP stays
		 * ready for the next one.  The IBA's responder classes leave
		 * a UD QP in its state on a length error (the kernel's rxe
		 * responder, RESPST_ERR_LENGTH, classes D and E for UC/UD);
		 * raw packet QPs here do the same (adapter/eth.c).
		 */
		emu_cqe_write_error(w.cq, d->qpn, false, w.wqe_index, (uint8_t)syn, 0);
		return EMU_UD_TAKEN;
	}
	if (syn) {
		/* the receiver's own fault (its lkey): its QP to ERR */
		emu_recv_error_cqe(&w, (uint8_t)syn);
		return EMU_UD_TAKEN;
	}
	emu_recv_cqe(&w, m->has_imm ? EMU_RECV_SEND_IMM : EMU_RECV_SEND,
		     m->has_imm ? m->imm_raw : htobe32(d->attr.pkey_index), rg.total,
		     m->src_qpn, m->grh ? 0x80000000u : 0, emu_sl_field(d, m->sl),
		     m->slid, status, m->solicited);
	return EMU_UD_TAKEN;
}

/* One member QP of a multicast group this adapter's port has attached. */
static void deliver_member(void *arg, struct emu_qp *d)
{
	const struct emu_ud_msg *m = arg;

	if (d)
		emu_ud_deliver(d, m);
}

/* The adapter an address vector names: false when it is this one (or no
 * other adapter the LID or GID maps to). */
static bool remote_dest(const struct emu_qp *qp, const uint8_t *av, bool eth,
			uint32_t *addr)
{
	/* ::ffff:224.x.y.z is a group (its MAC 01:00:5e:...), not an adapter */
	bool ok = eth ? !emu_gid_is_multicast(av + 16) && emu_gid_to_addr(av + 16, addr) :
		  emu_lid_to_addr(qp->attr.port, ld_be16(av + 6), addr);

	return ok && !emu_addr_is_self(*addr);
}

void emu_send_ud(struct send_op *op, const struct emu_gather *g)
{
	struct emu_qp *qp = op->qp;
	unsigned port = qp->attr.port ? qp->attr.port : 1;
	const uint8_t *av = op->w + 16;
	uint32_t dqpn = ld_be32(av + 32) & 0xffffff;
	uint32_t qkey = ld_be32(av + 36);
	uint32_t sltf = ld_be32(av + 12);
	bool eth = emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
	struct emu_ud_msg m = {
		.port = qp->attr.port,
		.src_qpn = qp->qpn,
		.imm_raw = op->imm_raw,
		.has_imm = op->opcode == EMU_OP_SEND_IMM,
		.solicited = op->srcrb & EMU_CTRL_SOLICIT,
		.sl = (uint8_t)(sltf >> (eth ? 29 : 28)),
		.slid = emu_port_lid(qp->attr.port),
		.grh = eth || (av[5] & 0x80),
		.tclass_flow = sltf & 0x0fffffff,
		.hop_limit = av[11],
		.ipoib_csum_ip = op->srcrb & EMU_CTRL_IP_CSUM,
		.ipoib_csum_l4 = op->srcrb & EMU_CTRL_TCP_UDP_CSUM,
		.payload = g,
	};
	struct emu_qp *d;
	uint32_t addr;
	bool v2;

	op->byte_cnt = g->total;
	if (g->total > (eth ? 1024u : 4096u)) {
		op->syndrome = EMU_SYN_LOCAL_LENGTH;
		return;
	}
	/* a Q_Key with bit 31 set means the QP's own */
	m.qkey = qkey & 0x80000000u ? qp->attr.qkey : qkey;
	emu_port_gid_entry(port, av[9], m.sgid, &v2);
	memcpy(m.dgid, av + 16, 16);
	if (remote_dest(qp, av, eth, &addr)) {
		if (emu_remote && emu_remote->ud_send(qp, addr, dqpn, &m) == EAGAIN)
			op->blocked = true;
		return;
	}
	if (emu_mcast_send(av, eth, dqpn, qp, deliver_member, &m)) {
		/* a group's members on other adapters get theirs by the wire */
		if (dqpn == EMU_MCAST_QPN && m.grh && emu_gid_is_multicast(m.dgid) &&
		    emu_remote && emu_remote->ud_mcast_send)
			emu_remote->ud_mcast_send(qp, &m);
		return;
	}
	d = emu_qp_by_qpn(dqpn);
	if (d)
		(void)emu_ud_deliver(d, &m);
}
