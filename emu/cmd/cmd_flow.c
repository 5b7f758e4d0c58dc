// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * CREATE_FLOW and DESTROY_FLOW, with the checks of the kernel's uverbs
 * layer (ib_uverbs_ex_create_flow, kern_spec_to_ib_spec) and of mlx4_ib
 * (mlx4_ib_create_flow, parse_flow_attr):
 *
 * - EINVAL: comp_mask, reserved bytes, more than 10 specs, sizes that do
 *   not add up, an unknown rule type, a port other than 1..ports, a
 *   priority above 0xfff, DONT_TRAP on a default rule, a spec of a type
 *   mlx4 does not parse (IPv6, tunnels, actions: parse_flow_attr's
 *   default case), IPv4 protocol/TOS/TTL/flags masks, mask bytes beyond
 *   the filter the kernel knows, a QP that is neither UD nor raw packet;
 * - EOPNOTSUPP: flags other than DONT_TRAP (EGRESS), DONT_TRAP on a
 *   sniffer rule, and DONT_TRAP at all (mlx4_ib_add_dont_trap_rule needs a
 *   firmware capability, DMFS_UC_MC_SNIFFER, this device does not have).
 *
 * mlx4_ib copies the destination MAC and the VLAN tag of an Ethernet spec
 * to the firmware rule and nothing else: the source MAC and the ether
 * type are accepted and not matched, as on the hardware.
 */
#include <string.h>

#include "adapter/abi.h"
#include "adapter/flow.h"
#include "adapter/objects.h"
#include "adapter/qp.h"
#include "cmd/cmd.h"

/* IB_FLOW_SPEC_SUPPORT_LAYERS, and sizeof(union ib_uverbs_flow_spec) (its
 * largest member is the IPv6 spec), of the kernel's uverbs layer */
#define MAX_SPECS 10
#define MAX_SPEC_SIZE sizeof(struct ib_uverbs_flow_spec_ipv6)
#define MAX_PRIORITY 0xfff
/* kernel enum ib_flow_flags */
#define FLAG_DONT_TRAP (1u << 1)
#define FLAGS_RESERVED (1u << 3)

/*
 * Value and mask of one spec: the kernel's filter size is half of what
 * follows the header; a shorter filter is zero-extended, a longer one may
 * only have zero mask bytes beyond `known` (spec_filter_size).
 */
static int spec_filter(const uint8_t *spec, uint16_t size, void *val, void *mask,
		       size_t known)
{
	size_t fsz = (size - sizeof(struct ib_uverbs_flow_spec_hdr)) / 2;
	const uint8_t *v = spec + sizeof(struct ib_uverbs_flow_spec_hdr), *m = v + fsz;

	if (!fsz)
		return EINVAL;
	for (size_t i = known; i < fsz; i++)
		if (m[i])
			return EINVAL;
	memset(val, 0, known);
	memset(mask, 0, known);
	memcpy(val, v, fsz < known ? fsz : known);
	memcpy(mask, m, fsz < known ? fsz : known);
	return 0;
}

static int spec_eth(const uint8_t *spec, uint16_t size, struct emu_flow_match *fm)
{
	struct ib_uverbs_flow_eth_filter v, m;
	int err = spec_filter(spec, size, &v, &m, sizeof(v));

	if (err)
		return err;
	for (int b = 0; b < 6; b++) {
		fm->dmac_mask[b] = m.dst_mac[b];
		fm->dmac[b] = v.dst_mac[b] & m.dst_mac[b];
	}
	fm->vlan_mask = m.vlan_tag;
	fm->vlan = v.vlan_tag & m.vlan_tag;
	return 0;
}

static int spec_ipv4(const uint8_t *spec, uint16_t size, struct emu_flow_match *fm)
{
	struct ib_uverbs_flow_ipv4_filter v, m;
	int err = spec_filter(spec, size, &v, &m, sizeof(v));

	/* parse_flow_attr: nothing after dst_ip is supported */
	if (err || m.proto || m.tos || m.ttl || m.flags)
		return EINVAL;
	fm->src_ip_mask = m.src_ip;
	fm->src_ip = v.src_ip & m.src_ip;
	fm->dst_ip_mask = m.dst_ip;
	fm->dst_ip = v.dst_ip & m.dst_ip;
	return 0;
}

static int spec_tcp_udp(const uint8_t *spec, uint16_t size, struct emu_flow_match *fm)
{
	struct ib_uverbs_flow_tcp_udp_filter v, m;
	int err = spec_filter(spec, size, &v, &m, sizeof(v));

	if (err)
		return err;
	fm->sport_mask = m.src_port;
	fm->sport = v.src_port & m.src_port;
	fm->dport_mask = m.dst_port;
	fm->dport = v.dst_port & m.dst_port;
	return 0;
}

/* One spec into fm; a layer given twice is refused. */
static int parse_spec(const uint8_t *spec, const struct ib_uverbs_flow_spec_hdr *h,
		      struct emu_flow_match *fm)
{
	uint8_t layer;

	switch (h->type) {
	case IBV_FLOW_SPEC_ETH:
		layer = EMU_FLOW_ETH;
		break;
	case IBV_FLOW_SPEC_IPV4:
		layer = EMU_FLOW_IPV4;
		break;
	case IBV_FLOW_SPEC_TCP:
		layer = EMU_FLOW_TCP;
		break;
	case IBV_FLOW_SPEC_UDP:
		layer = EMU_FLOW_UDP;
		break;
	default:
		return EINVAL;
	}
	if ((fm->layers & layer) ||
	    ((layer & (EMU_FLOW_TCP | EMU_FLOW_UDP)) &&
	     (fm->layers & (EMU_FLOW_TCP | EMU_FLOW_UDP))))
		return EINVAL;
	fm->layers |= layer;
	if (layer == EMU_FLOW_ETH)
		return spec_eth(spec, h->size, fm);
	if (layer == EMU_FLOW_IPV4)
		return spec_ipv4(spec, h->size, fm);
	return spec_tcp_udp(spec, h->size, fm);
}

static int check_attr(const struct ib_uverbs_flow_attr *a)
{
	if (a->reserved[0] || a->reserved[1] || a->flags >= FLAGS_RESERVED ||
	    a->num_of_specs > MAX_SPECS || a->size > a->num_of_specs * MAX_SPEC_SIZE ||
	    ((a->flags & FLAG_DONT_TRAP) && (a->type == IBV_FLOW_ATTR_ALL_DEFAULT ||
					     a->type == IBV_FLOW_ATTR_MC_DEFAULT)) ||
	    a->port < 1 || a->port > emu_cfg.ports)
		return EINVAL;
	if (a->flags)
		return EOPNOTSUPP;
	if (a->type > IBV_FLOW_ATTR_SNIFFER || a->priority > MAX_PRIORITY)
		return EINVAL;
	return 0;
}

static int parse_specs(const uint8_t *spec, const uint8_t *end, unsigned n,
		       struct emu_flow_match *fm)
{
	for (unsigned i = 0; i < n; i++) {
		struct ib_uverbs_flow_spec_hdr h;
		int err;

		if (end - spec < (ptrdiff_t)sizeof(h))
			return EINVAL;
		memcpy(&h, spec, sizeof(h));
		if (h.size < sizeof(h) || end - spec < h.size || h.reserved)
			return EINVAL;
		err = parse_spec(spec, &h, fm);
		if (err)
			return err;
		spec += h.size;
	}
	return spec == end ? 0 : EINVAL;
}

int emu_cmd_create_flow(struct emu_cmd *c)
{
	const struct ib_uverbs_create_flow *q = c->in;
	struct ib_uverbs_create_flow_resp r = { 0 };
	const uint8_t *spec = (const uint8_t *)c->in_raw + sizeof(*q);
	const uint8_t *end = (const uint8_t *)c->in_raw + c->in_raw_len;
	struct emu_qp *qp = emu_qp_lookup(c->ctx, q->qp_handle);
	struct emu_flow_match fm;
	int err, handle;

	/* flow_attr.size counts the specs only, not flow_attr itself (kernel
	 * uverbs_cmd.c ib_uverbs_ex_create_flow; libibverbs cmd_flow.c). */
	if (q->comp_mask || (size_t)(end - spec) < q->flow_attr.size)
		return EINVAL;
	err = check_attr(&q->flow_attr);
	if (err)
		return err;
	/* ib_uverbs_ex_create_flow takes UD and raw packet QPs; mlx4_ib
	 * checks no QP type */
	if (!qp || (qp->type != EMU_QPT_RAW && qp->type != EMU_QPT_UD))
		return EINVAL;
	memset(&fm, 0, sizeof(fm));
	fm.port = q->flow_attr.port;
	fm.type = (uint8_t)q->flow_attr.type;
	fm.priority = q->flow_attr.priority;
	err = parse_specs(spec, spec + q->flow_attr.size, q->flow_attr.num_of_specs, &fm);
	if (err)
		return err;
	handle = emu_flow_add(c->ctx, qp->qpn, &fm);
	if (handle < 0)
		return ENOMEM;
	r.flow_handle = (uint32_t)handle;
	err = emu_put_resp(c, &r, sizeof(r));
	if (err)
		emu_flow_remove(emu_flow_get(c->ctx, (uint32_t)handle));
	return err;
}

int emu_cmd_destroy_flow(struct emu_cmd *c)
{
	const struct ib_uverbs_destroy_flow *q = c->in;
	struct emu_flow *f = emu_flow_get(c->ctx, q->flow_handle);

	if (q->comp_mask || !f)
		return EINVAL;
	emu_flow_remove(f);
	return 0;
}
