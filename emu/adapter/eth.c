// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Raw Ethernet between the raw packet QPs of the process.
 *
 * Delivery: a frame sent on port P arrives at port P itself, or at the
 * other port when the two are cabled to each other; an uncabled port's
 * frame also goes onto the wire to the other adapters (the transport's
 * eth_send, adapter/remote.h), whose ports take it through
 * emu_eth_receive(); nowhere while a link is down;
 * and is dropped by a receiving port whose MTU it exceeds.
 * The port's flow rules (flow.c) pick its destination QP; a frame no rule
 * takes goes to the raw packet QPs of the port that have no rule at all
 * when it is for the port MAC, broadcast or multicast (a convenience for
 * programs without rules: the hardware would drop it).  The sender never
 * receives its own frame.  Receivers with no posted WQE drop the frame.
 *
 * Offloads: the IP and TCP/UDP checksum flags of the send WQE fill in the
 * checksums of the delivered copy; LSO cuts the payload into MSS-sized
 * TCP segments behind a copy of the header.  Receive CQEs carry the
 * parser's status bits (IPv4/IPv6, fragment, IPv4 options, TCP/UDP, the
 * checksum results) and, on a ConnectX-3 Pro, the VXLAN tunnel bits.
 */
#include <endian.h>
#include <string.h>

#include "adapter/abi.h"
#include "adapter/cq.h"
#include "adapter/flow.h"
#include "adapter/objects.h"
#include "adapter/port.h"
#include "adapter/remote.h"
#include "adapter/wqe.h"
#include "wire/identity.h"

#define FRAME_MAX (65536 + 256)

static uint8_t frame[FRAME_MAX];

/* CQE status word (big-endian 32 bits at byte 16 of the CQE): the
 * ConnectX-3 parser's view of the frame, bit positions as DPDK's
 * mlx4_prm.h and the kernel's mlx4/cq.h name them. */
enum {
	ST_TCP_UDP_CSUM_OK = 1 << 2,
	ST_IPV6_FRAG = 1 << 12,
	ST_IPV4 = 1 << 22,
	ST_IPV4_FRAG = 1 << 23,
	ST_IPV6 = 1 << 24,
	ST_IPV4_OPTIONS = 1 << 25,
	ST_TCP = 1 << 26,
	ST_UDP = 1 << 27,
	ST_IP_HDR_CSUM_OK = 1 << 28,
};

/* ConnectX-3 Pro: bits of the CQE's vlan_my_qpn word describing the outer
 * headers of a VXLAN frame (the status word then describes the inner). */
enum {
	PI_TUNNEL_IPV4 = 1 << 25,
	PI_TUNNEL_L4_CSUM_OK = 1 << 26,
	PI_TUNNEL = 1 << 27,
};
#define PI_TUNNEL_IP_CSUM_OK (1u << 31)

#define VXLAN_UDP_PORT 4789

struct l3l4 {
	uint32_t l3;		/* offset of the IP header, 0 = none */
	uint32_t l4;		/* offset of the TCP/UDP header, 0 = none */
	uint8_t ipver, proto;
	bool frag;		/* IPv4 MF/offset, or an IPv6 fragment header */
	bool options;		/* IPv4 header longer than 20 bytes */
};

/*
 * Finds the IP and TCP/UDP headers behind the 16-bit ethertype at
 * type_off; the IP header starts `gap` bytes after it (2 for Ethernet,
 * 4 for the IPoIB encapsulation header).  Ethernet may stack VLAN tags.
 */
static void parse_at(const uint8_t *f, uint32_t len, uint32_t type_off,
		     uint32_t gap, bool vlan_ok, struct l3l4 *p)
{
	uint32_t off = type_off;
	uint16_t type;

	memset(p, 0, sizeof(*p));
	if (len < type_off + gap)
		return;
	type = ld_be16(f + off);
	while (vlan_ok && (type == 0x8100 || type == 0x88a8) && off + 6 <= len) {
		off += 4;
		type = ld_be16(f + off);
	}
	off += gap;
	if (type == 0x0800 && off + 20 <= len && (f[off] >> 4) == 4) {
		uint32_t ihl = (f[off] & 15) * 4u;

		p->l3 = off;
		p->ipver = 4;
		p->proto = f[off + 9];
		p->frag = (ld_be16(f + off + 6) & 0x3fff) != 0;
		p->options = ihl > 20;
		if (ihl >= 20 && off + ihl <= len && !p->frag)
			p->l4 = off + ihl;
	} else if (type == 0x86dd && off + 40 <= len) {
		p->l3 = off;
		p->ipver = 6;
		p->proto = f[off + 6];
		p->frag = p->proto == 44;
		if (!p->frag)
			p->l4 = off + 40;
	}
	if (p->l4 && !((p->proto == 6 && p->l4 + 20 <= len) ||
		       (p->proto == 17 && p->l4 + 8 <= len)))
		p->l4 = 0;
}

static void parse(const uint8_t *f, uint32_t len, struct l3l4 *p)
{
	parse_at(f, len, 12, 2, true, p);
}

static uint32_t sum16(const uint8_t *p, uint32_t len, uint32_t acc)
{
	for (uint32_t i = 0; i + 1 < len; i += 2)
		acc += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		acc += (uint32_t)p[len - 1] << 8;
	return acc;
}

static uint16_t fold(uint32_t acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

static uint32_t l4_len(const uint8_t *f, uint32_t len, const struct l3l4 *p)
{
	if (p->ipver == 4) {
		uint32_t tot = ld_be16(f + p->l3 + 2);

		if (p->l3 + tot <= len)
			len = p->l3 + tot;
	} else {
		uint32_t pl = ld_be16(f + p->l3 + 4);

		if (p->l3 + 40 + pl <= len)
			len = p->l3 + 40 + pl;
	}
	return len - p->l4;
}

static uint32_t pseudo_sum(const uint8_t *f, const struct l3l4 *p, uint32_t n)
{
	uint32_t acc = 0;

	if (p->ipver == 4)
		acc = sum16(f + p->l3 + 12, 8, 0);
	else
		acc = sum16(f + p->l3 + 8, 32, 0);
	return acc + p->proto + (n & 0xffff) + (n >> 16);
}

static void fill_parsed(uint8_t *f, uint32_t len, const struct l3l4 *pp,
			bool ip, bool l4)
{
	const struct l3l4 p = *pp;

	if (ip && p.ipver == 4) {
		uint32_t ihl = (f[p.l3] & 15) * 4u;
		uint16_t c;

		f[p.l3 + 10] = f[p.l3 + 11] = 0;
		c = fold(sum16(f + p.l3, ihl, 0));
		f[p.l3 + 10] = (uint8_t)(c >> 8);
		f[p.l3 + 11] = (uint8_t)c;
	}
	if (l4 && p.l4) {
		uint32_t n = l4_len(f, len, &p);
		uint32_t at = p.l4 + (p.proto == 6 ? 16 : 6);
		uint16_t c;

		f[at] = f[at + 1] = 0;
		c = fold(sum16(f + p.l4, n, pseudo_sum(f, &p, n)));
		if (p.proto == 17 && !c)
			c = 0xffff;
		f[at] = (uint8_t)(c >> 8);
		f[at + 1] = (uint8_t)c;
	}
}

static uint32_t status_parsed(const uint8_t *f, uint32_t len, const struct l3l4 *pp)
{
	const struct l3l4 p = *pp;
	uint32_t st = 0;

	if (p.ipver == 4) {
		st |= ST_IPV4;
		if (p.frag)
			st |= ST_IPV4_FRAG;
		if (p.options)
			st |= ST_IPV4_OPTIONS;
		if (fold(sum16(f + p.l3, (f[p.l3] & 15) * 4u, 0)) == 0)
			st |= ST_IP_HDR_CSUM_OK;
	} else if (p.ipver == 6) {
		st |= ST_IPV6;
		if (p.frag)
			st |= ST_IPV6_FRAG;
	}
	if (p.l4)
		st |= p.proto == 6 ? ST_TCP : ST_UDP;
	if (p.l4) {
		uint32_t n = l4_len(f, len, &p);
		uint32_t at = p.l4 + (p.proto == 6 ? 16 : 6);

		if ((p.proto == 17 && !f[at] && !f[at + 1]) ||
		    fold(sum16(f + p.l4, n, pseudo_sum(f, &p, n))) == 0)
			st |= ST_TCP_UDP_CSUM_OK;
	}
	return st;
}

static void fill_checksums(uint8_t *f, uint32_t len, bool ip, bool l4)
{
	struct l3l4 p;

	parse(f, len, &p);
	fill_parsed(f, len, &p, ip, l4);
}

/*
 * The status word, and in *pinfo the vlan_my_qpn flag bits: on a
 * ConnectX-3 Pro a VXLAN frame (UDP port 4789, 8-byte VXLAN header, inner
 * Ethernet frame) is described by its inner headers in the status word and
 * by its outer ones in *pinfo.
 */
static uint32_t rx_status(const uint8_t *f, uint32_t len, uint32_t *pinfo)
{
	struct l3l4 p;
	uint32_t outer, inner_off;

	*pinfo = 0;
	parse(f, len, &p);
	outer = status_parsed(f, len, &p);
	inner_off = p.l4 + 8 + 8;
	if (emu_cfg.device_id != 0x1007 || !p.l4 || p.proto != 17 ||
	    ld_be16(f + p.l4 + 2) != VXLAN_UDP_PORT || inner_off + 14 > len)
		return outer;
	*pinfo = PI_TUNNEL;
	if (outer & ST_IPV4)
		*pinfo |= PI_TUNNEL_IPV4;
	if (outer & ST_IP_HDR_CSUM_OK)
		*pinfo |= PI_TUNNEL_IP_CSUM_OK;
	if (outer & ST_TCP_UDP_CSUM_OK)
		*pinfo |= PI_TUNNEL_L4_CSUM_OK;
	parse(f + inner_off, len - inner_off, &p);
	return status_parsed(f + inner_off, len - inner_off, &p);
}

void emu_ipoib_fill_checksums(uint8_t *msg, uint32_t len, bool ip, bool l4)
{
	struct l3l4 p;

	parse_at(msg, len, 0, 4, false, &p);
	fill_parsed(msg, len, &p, ip, l4);
}

uint32_t emu_ipoib_rx_status(const uint8_t *msg, uint32_t len)
{
	struct l3l4 p;

	parse_at(msg, len, 0, 4, false, &p);
	return status_parsed(msg, len, &p);
}

static uint32_t toeplitz(const uint8_t key[40], const uint8_t *in, uint32_t n)
{
	uint32_t hash = 0;
	uint32_t v = ld_be32(key);

	for (uint32_t i = 0; i < n; i++) {
		for (int b = 7; b >= 0; b--) {
			if (in[i] & (1 << b))
				hash ^= v;
			v <<= 1;
			if (i + 4 < 40 && (key[i + 4] & (1 << b)))
				v |= 1;
		}
	}
	return hash;
}

static uint32_t rss_hash(const struct emu_qp *qp, const uint8_t *f, uint32_t len)
{
	uint8_t in[36];
	uint32_t n = 0;
	struct l3l4 p;
	uint64_t m = qp->rss.hash_fields;

	parse(f, len, &p);
	if (p.ipver == 4) {
		if (m & MLX4_IB_RX_HASH_SRC_IPV4) {
			memcpy(in + n, f + p.l3 + 12, 4);
			n += 4;
		}
		if (m & MLX4_IB_RX_HASH_DST_IPV4) {
			memcpy(in + n, f + p.l3 + 16, 4);
			n += 4;
		}
	} else if (p.ipver == 6) {
		if (m & MLX4_IB_RX_HASH_SRC_IPV6) {
			memcpy(in + n, f + p.l3 + 8, 16);
			n += 16;
		}
		if (m & MLX4_IB_RX_HASH_DST_IPV6) {
			memcpy(in + n, f + p.l3 + 24, 16);
			n += 16;
		}
	}
	if (p.l4) {
		uint64_t src = p.proto == 6 ? MLX4_IB_RX_HASH_SRC_PORT_TCP :
					      MLX4_IB_RX_HASH_SRC_PORT_UDP;
		uint64_t dst = p.proto == 6 ? MLX4_IB_RX_HASH_DST_PORT_TCP :
					      MLX4_IB_RX_HASH_DST_PORT_UDP;

		if (m & src) {
			memcpy(in + n, f + p.l4, 2);
			n += 2;
		}
		if (m & dst) {
			memcpy(in + n, f + p.l4 + 2, 2);
			n += 2;
		}
	}
	return n ? toeplitz(qp->rss.key, in, n) : 0;
}

/* The fields the flow rules look at. */
static void flow_keys(const uint8_t *f, uint32_t len, struct emu_flow_keys *k)
{
	struct l3l4 p;

	memset(k, 0, sizeof(*k));
	k->dmac = f;
	if (len >= 16 && ld_be16(f + 12) == 0x8100) {
		k->tagged = true;
		memcpy(&k->tci, f + 14, 2);
	}
	parse(f, len, &p);
	if (p.ipver == 4) {
		k->ipv4 = true;
		memcpy(&k->src_ip, f + p.l3 + 12, 4);
		memcpy(&k->dst_ip, f + p.l3 + 16, 4);
	}
	if (p.l4) {
		k->l4_proto = p.proto;
		memcpy(&k->sport, f + p.l4, 2);
		memcpy(&k->dport, f + p.l4 + 2, 2);
	}
}

struct rx_frame {
	const uint8_t *f;
	uint32_t len, status, pinfo;
};

/*
 * One receive WQE takes the frame.  A frame longer than the WQE's scatter
 * list completes it with a local length error and the queue goes on with
 * its next WQE: DPDK's mlx4 receive path counts such a CQE as a dropped
 * packet and keeps polling the same queue, with no way to bring a queue
 * back from the error state.  A protection error moves the QP to ERR, as
 * on every other QP type.
 */
static void deliver_to(struct emu_qp *rx, const struct rx_frame *fr, uint32_t hash)
{
	struct emu_gather g = { 0 };
	struct emu_rwqe w;
	struct emu_cqe c;
	int syn;

	if (!emu_rq_take(rx, &w)) {
		emu_port_count_no_wqe(rx->attr.port ? rx->attr.port : 1);
		return;
	}
	emu_gather_add(&g, fr->f, fr->len);
	syn = emu_scatter(&w, &g);
	if (syn) {
		emu_cqe_write_error(w.cq, rx->qpn, false, w.wqe_index, (uint8_t)syn, 0);
		if (syn != EMU_SYN_LOCAL_LENGTH)
			emu_qp_set_error(rx);
		EMU_TRACE("QPN 0x%x: %u-byte frame, receive WQE 0x%x: syndrome 0x%x",
			  rx->qpn, fr->len, w.wqe_index, syn);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.vlan_my_qpn = htobe32(rx->qpn | fr->pinfo);
	c.immed_rss_invalid = htobe32(hash);
	c.status = htobe32(fr->status);
	c.byte_cnt = htobe32(fr->len);
	c.wqe_index = htobe16(w.wqe_index);
	emu_cqe_write(w.cq, &c, 0x01, false);
	EMU_CTR_INC(packets);
}

/* A destination QP: a raw QP in RTR or RTS takes the frame itself, an RSS
 * QP hands it to the WQ its indirection table names at Toeplitz hash &
 * (size - 1); a QP in another state (mlx4's drop queue is a raw QP left
 * in RESET) or a WQ that is not ready drops it. */
static void deliver_qp(struct emu_qp *rx, void *arg)
{
	const struct rx_frame *fr = arg;

	if (rx->is_wq || rx->type != EMU_QPT_RAW ||
	    (rx->state != EMU_QPS_RTR && rx->state != EMU_QPS_RTS))
		return;
	if (rx->is_rss) {
		uint32_t hash = rss_hash(rx, fr->f, fr->len);
		uint32_t size = 1u << rx->rss.ind->log_size;
		struct emu_qp *wq = emu_qp_by_qpn(rx->rss.ind->wqn[hash & (size - 1)]);

		if (wq && wq->is_wq && wq->state == EMU_QPS_RTR)
			deliver_to(wq, fr, hash);
	} else {
		deliver_to(rx, fr, 0);
	}
}

/* A frame no rule steers reaches the raw QPs of the port that have no
 * rule at all when it is for the port MAC, broadcast or multicast. */
static void deliver_unsteered(const struct emu_qp *tx, unsigned port, struct rx_frame *fr)
{
	uint8_t mac[6];

	emu_port_mac(port, mac);
	if (!(fr->f[0] & 1) && memcmp(fr->f, mac, 6))
		return;
	for (uint32_t i = 0; i < emu_dev.qp_end; i++) {
		struct emu_qp *rx = emu_dev.qp_tab[i];

		if (rx && rx->used && rx != tx && !rx->nflows && rx->attr.port == port)
			deliver_qp(rx, fr);
	}
}

/*
 * A frame arriving at `port`: sent by tx on tx_port of this adapter, or
 * from the wire (tx NULL, tx_port = port).  The port's MAC drops a frame
 * over its MTU; its flow rules give the frame its destination.
 */
static void arrive(unsigned port, unsigned tx_port, const struct emu_qp *tx,
		   const uint8_t *f, uint32_t len)
{
	struct emu_flow_keys k;
	struct rx_frame fr = { .f = f, .len = len };

	/* the MAC's frame limit: MTU + header + one VLAN tag (FCS not counted) */
	if (len > emu_port_mtu(port) + 18) {
		emu_port_count_oversize(port);
		EMU_TRACE("port %u: %u-byte frame dropped, MTU %u", port, len,
			  emu_port_mtu(port));
		return;
	}
	fr.status = rx_status(f, len, &fr.pinfo);
	flow_keys(f, len, &k);
	if (!emu_flow_steer(port, tx_port, tx, &k, deliver_qp, &fr))
		deliver_unsteered(tx, port, &fr);
}

static void deliver(struct emu_qp *tx, const uint8_t *f, uint32_t len)
{
	unsigned port = emu_port_peer(tx->attr.port);

	if (len < 14)
		return;
	if (!emu_port_link_up(tx->attr.port) || !emu_port_link_up(port)) {
		emu_port_count_link_down(tx->attr.port);
		EMU_TRACE("port %u: frame of QPN 0x%x lost, link down", tx->attr.port, tx->qpn);
		return;
	}
	/* a cabled port's frames go down the cable, the others' to the wire
	 * as well as to the port's own QPs (the adapter's loopback) */
	if (port == tx->attr.port && emu_remote && emu_remote->eth_send)
		emu_remote->eth_send(port, f, len);
	arrive(port, tx->attr.port, tx, f, len);
}

void emu_eth_receive(unsigned port, const uint8_t *f, uint32_t len)
{
	if (len < 14)
		return;
	if (!emu_port_link_up(port)) {
		emu_port_count_link_down(port);
		return;
	}
	arrive(port, port, NULL, f, len);
}

static uint32_t linearize(const struct emu_gather *g, uint8_t *dst, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->n && n < max; i++) {
		uint32_t k = g->c[i].len < max - n ? g->c[i].len : max - n;

		memcpy(dst + n, g->c[i].p, k);
		n += k;
	}
	return n;
}

/* Puts a 4-byte tag after the two MAC addresses; returns the new length. */
static uint32_t tag_frame(uint8_t *f, uint32_t len, uint32_t vlan)
{
	if (!vlan || len < 12 || len + 4 > FRAME_MAX)
		return len;
	memmove(f + 16, f + 12, len - 12);
	f[12] = (uint8_t)(vlan >> 24);
	f[13] = (uint8_t)(vlan >> 16);
	f[14] = (uint8_t)(vlan >> 8);
	f[15] = (uint8_t)vlan;
	return len + 4;
}

static void send_lso(struct emu_qp *qp, const struct emu_gather *g,
		     const uint8_t *hdr, uint32_t hdr_len, uint32_t mss, uint32_t vlan)
{
	static uint8_t payload[FRAME_MAX];
	uint32_t total = linearize(g, payload, sizeof(payload));
	struct l3l4 p;
	uint32_t seq0 = 0;
	uint16_t id0 = 0;

	if (hdr_len > 256)
		return;
	memcpy(frame, hdr, hdr_len);
	parse(frame, hdr_len, &p);
	if (!p.l3 || p.proto != 6 || !p.l4)
		return;
	seq0 = ld_be32(frame + p.l4 + 4);
	if (p.ipver == 4)
		id0 = ld_be16(frame + p.l3 + 4);
	for (uint32_t off = 0, k = 0; off < total || (!total && !k); off += mss, k++) {
		uint32_t n = total - off < mss ? total - off : mss;
		bool last = off + n >= total;
		uint32_t seq = seq0 + off;
		uint8_t flags = hdr[p.l4 + 13];

		memcpy(frame, hdr, hdr_len);
		memcpy(frame + hdr_len, payload + off, n);
		if (p.ipver == 4) {
			uint16_t tot = (uint16_t)(hdr_len - p.l3 + n);
			uint16_t id = (uint16_t)(id0 + k);

			frame[p.l3 + 2] = (uint8_t)(tot >> 8);
			frame[p.l3 + 3] = (uint8_t)tot;
			frame[p.l3 + 4] = (uint8_t)(id >> 8);
			frame[p.l3 + 5] = (uint8_t)id;
		} else {
			uint16_t pl = (uint16_t)(hdr_len - p.l3 - 40 + n);

			frame[p.l3 + 4] = (uint8_t)(pl >> 8);
			frame[p.l3 + 5] = (uint8_t)pl;
		}
		frame[p.l4 + 4] = (uint8_t)(seq >> 24);
		frame[p.l4 + 5] = (uint8_t)(seq >> 16);
		frame[p.l4 + 6] = (uint8_t)(seq >> 8);
		frame[p.l4 + 7] = (uint8_t)seq;
		if (!last)
			frame[p.l4 + 13] = flags & (uint8_t)~0x09;	/* no FIN/PSH */
		fill_checksums(frame, hdr_len + n, true, true);
		deliver(qp, frame, tag_frame(frame, hdr_len + n, vlan));
		if (!total)
			break;
	}
}

int emu_eth_send(struct emu_qp *qp, const struct emu_gather *g, uint32_t srcrb,
		 const uint8_t *lso_hdr, uint32_t lso_hdr_len, uint32_t mss,
		 uint32_t vlan)
{
	uint32_t len;

	if (lso_hdr) {
		send_lso(qp, g, lso_hdr, lso_hdr_len, mss, vlan);
		return 0;
	}
	len = linearize(g, frame, sizeof(frame) - 4);
	len = tag_frame(frame, len, vlan);
	if (srcrb & (EMU_CTRL_IP_CSUM | EMU_CTRL_TCP_UDP_CSUM))
		fill_checksums(frame, len, srcrb & EMU_CTRL_IP_CSUM,
			       srcrb & EMU_CTRL_TCP_UDP_CSUM);
	deliver(qp, frame, len);
	return 0;
}
