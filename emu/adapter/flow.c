// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Flow steering of the Ethernet ports.
 *
 * The rules of a port form one table, as in the ConnectX-3's
 * device-managed steering.  A frame goes to the QP of the best normal
 * rule that matches it: the lowest priority value (mlx4_ib puts the verbs
 * priority in the low 12 bits of the firmware rule's priority, under the
 * uverbs domain), among equals the older rule.  Only when no normal rule
 * matches does a multicast-default rule take a multicast frame, then an
 * all-default rule any frame (ibv_create_flow(3): traffic "which isn't
 * steered to any QP").  Several QPs attaching the very same rule share it
 * and each gets a copy, as the firmware keeps one steering entry with a
 * list of QPs (mlx4's multicast attach in device-managed mode relies on
 * this).  A sniffer rule gets a copy of everything its port sends or
 * receives, besides the frame's destination.
 */
#include <string.h>

#include "adapter/abi.h"
#include "adapter/flow.h"
#include "adapter/objects.h"

static uint32_t flow_hwm;	/* one past the highest slot ever used */
static uint64_t flow_seq;

int emu_flow_add(struct emu_ctx *ctx, uint32_t qpn, const struct emu_flow_match *m)
{
	struct emu_qp *qp = emu_qp_by_qpn(qpn);

	for (uint32_t i = 0; i < EMU_MAX_FLOW; i++) {
		struct emu_flow *f = &emu_dev.flow[i];

		if (f->used)
			continue;
		f->used = true;
		f->ctx = ctx;
		f->qpn = qpn;
		f->seq = ++flow_seq;
		f->m = *m;
		if (i >= flow_hwm)
			flow_hwm = i + 1;
		if (qp)
			qp->nflows++;
		return (int)i;
	}
	return -1;
}

struct emu_flow *emu_flow_get(struct emu_ctx *ctx, uint32_t handle)
{
	struct emu_flow *f;

	if (handle >= EMU_MAX_FLOW)
		return NULL;
	f = &emu_dev.flow[handle];
	return f->used && f->ctx == ctx ? f : NULL;
}

void emu_flow_remove(struct emu_flow *f)
{
	struct emu_qp *qp = emu_qp_by_qpn(f->qpn);

	f->used = false;
	if (qp && qp->nflows)
		qp->nflows--;
}

void emu_flow_remove_ctx(struct emu_ctx *ctx)
{
	for (uint32_t i = 0; i < flow_hwm; i++)
		if (emu_dev.flow[i].used && emu_dev.flow[i].ctx == ctx)
			emu_flow_remove(&emu_dev.flow[i]);
}

bool emu_flow_qp_has_rules(uint32_t qpn)
{
	const struct emu_qp *qp = emu_qp_by_qpn(qpn);

	return qp && qp->nflows;
}

static bool eth_matches(const struct emu_flow_match *m, const struct emu_flow_keys *k)
{
	for (int b = 0; b < 6; b++)
		if ((k->dmac[b] & m->dmac_mask[b]) != m->dmac[b])
			return false;
	/* a rule on the VLAN tag never takes an untagged frame */
	return !m->vlan_mask || (k->tagged && (k->tci & m->vlan_mask) == m->vlan);
}

static bool rule_matches(const struct emu_flow_match *m, const struct emu_flow_keys *k)
{
	if ((m->layers & EMU_FLOW_ETH) && !eth_matches(m, k))
		return false;
	if ((m->layers & EMU_FLOW_IPV4) &&
	    (!k->ipv4 || (k->src_ip & m->src_ip_mask) != m->src_ip ||
	     (k->dst_ip & m->dst_ip_mask) != m->dst_ip))
		return false;
	if (m->layers & (EMU_FLOW_TCP | EMU_FLOW_UDP)) {
		uint8_t proto = m->layers & EMU_FLOW_TCP ? 6 : 17;

		if (k->l4_proto != proto || (k->sport & m->sport_mask) != m->sport ||
		    (k->dport & m->dport_mask) != m->dport)
			return false;
	}
	return true;
}

static bool better(const struct emu_flow *a, const struct emu_flow *best)
{
	return !best || a->m.priority < best->m.priority ||
	       (a->m.priority == best->m.priority && a->seq < best->seq);
}

/* The winning rule of one class (normal, multicast default, all default). */
static const struct emu_flow *best_of(uint8_t type, unsigned port, const struct emu_qp *sender,
				      const struct emu_flow_keys *k)
{
	const struct emu_flow *best = NULL;

	for (uint32_t i = 0; i < flow_hwm; i++) {
		const struct emu_flow *f = &emu_dev.flow[i];

		if (!f->used || f->m.type != type || f->m.port != port ||
		    (sender && f->qpn == sender->qpn))
			continue;
		if (type == IBV_FLOW_ATTR_NORMAL && !rule_matches(&f->m, k))
			continue;
		if (better(f, best))
			best = f;
	}
	return best;
}

/* true when an earlier slot than `upto` already gave the frame to qpn */
static bool seen_before(uint32_t upto, uint32_t qpn, const struct emu_flow_match *same,
			unsigned port, unsigned tx_port)
{
	for (uint32_t i = 0; i < upto; i++) {
		const struct emu_flow *f = &emu_dev.flow[i];

		if (!f->used || f->qpn != qpn)
			continue;
		if (same ? !memcmp(&f->m, same, sizeof(*same)) :
			   f->m.type == IBV_FLOW_ATTR_SNIFFER &&
			   (f->m.port == port || f->m.port == tx_port))
			return true;
	}
	return false;
}

static void give(uint32_t qpn, const struct emu_qp *sender, emu_flow_sink *sink, void *arg)
{
	struct emu_qp *qp = emu_qp_by_qpn(qpn);

	if (qp && qp != sender)
		sink(qp, arg);
}

bool emu_flow_steer(unsigned port, unsigned tx_port, const struct emu_qp *sender,
		    const struct emu_flow_keys *k, emu_flow_sink *sink, void *arg)
{
	const struct emu_flow *best = best_of(IBV_FLOW_ATTR_NORMAL, port, sender, k);

	if (!best && (k->dmac[0] & 1))
		best = best_of(IBV_FLOW_ATTR_MC_DEFAULT, port, sender, k);
	if (!best)
		best = best_of(IBV_FLOW_ATTR_ALL_DEFAULT, port, sender, k);
	for (uint32_t i = 0; best && i < flow_hwm; i++) {
		const struct emu_flow *f = &emu_dev.flow[i];

		if (f->used && !memcmp(&f->m, &best->m, sizeof(f->m)) &&
		    !seen_before(i, f->qpn, &best->m, port, tx_port))
			give(f->qpn, sender, sink, arg);
	}
	for (uint32_t i = 0; i < flow_hwm; i++) {
		const struct emu_flow *f = &emu_dev.flow[i];

		if (f->used && f->m.type == IBV_FLOW_ATTR_SNIFFER &&
		    (f->m.port == port || f->m.port == tx_port) &&
		    !seen_before(i, f->qpn, NULL, port, tx_port))
			give(f->qpn, sender, sink, arg);
	}
	return best != NULL;
}
