/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Flow steering rules of the Ethernet ports (ibv_create_flow), as the
 * ConnectX-3's device-managed flow steering applies them: which receive
 * QP a frame arriving on a port goes to.
 */
#ifndef MLX4EMU_FLOW_H
#define MLX4EMU_FLOW_H

#include <stdbool.h>
#include <stdint.h>

struct emu_ctx;
struct emu_qp;

/* The layers a rule matches (EMU_FLOW_* bits of emu_flow_match.layers). */
enum {
	EMU_FLOW_ETH = 1 << 0,
	EMU_FLOW_IPV4 = 1 << 1,
	EMU_FLOW_TCP = 1 << 2,
	EMU_FLOW_UDP = 1 << 3,
};

/*
 * What a rule compares.  Every value and mask is in network byte order,
 * as in the verbs specs; values are stored already masked.  Two rules are
 * the same rule for the device when these bytes are equal (the structure
 * is zeroed before it is filled, padding included).
 */
struct emu_flow_match {
	uint8_t port;		/* 1-based */
	uint8_t type;		/* ibv_flow_attr_type */
	uint16_t priority;	/* 0 = highest, up to 0xfff */
	uint8_t layers;
	uint8_t dmac[6], dmac_mask[6];
	uint16_t vlan, vlan_mask;	/* 802.1Q TCI */
	uint32_t src_ip, src_ip_mask, dst_ip, dst_ip_mask;
	uint16_t sport, sport_mask, dport, dport_mask;
};

struct emu_flow {
	bool used;
	struct emu_ctx *ctx;
	uint32_t qpn;
	uint64_t seq;		/* creation order: the older rule wins a tie */
	struct emu_flow_match m;
};

/* The fields of a frame the rules look at, network byte order. */
struct emu_flow_keys {
	const uint8_t *dmac;
	bool tagged;		/* first ethertype 0x8100 */
	uint16_t tci;
	bool ipv4;
	uint32_t src_ip, dst_ip;
	uint8_t l4_proto;	/* 6, 17, or 0: no TCP/UDP header */
	uint16_t sport, dport;
};

/* Receives one copy of the frame (the caller delivers it). */
typedef void emu_flow_sink(struct emu_qp *qp, void *arg);

/*
 * Adds a rule for qpn; returns its handle (index) or -1 when the table is
 * full.
 */
int emu_flow_add(struct emu_ctx *ctx, uint32_t qpn, const struct emu_flow_match *m);
/* The rule `handle` of ctx, or NULL. */
struct emu_flow *emu_flow_get(struct emu_ctx *ctx, uint32_t handle);
void emu_flow_remove(struct emu_flow *f);
/* Drops every rule of a context (closed). */
void emu_flow_remove_ctx(struct emu_ctx *ctx);
/* true when some rule steers to qpn */
bool emu_flow_qp_has_rules(uint32_t qpn);

/*
 * Steers a frame arriving on `port`: hands `sink` the destination QP of
 * the winning rule (every QP of that same rule when several QPs attached
 * identical rules), then one copy to each sniffer QP of `port` and of
 * `tx_port` (the port that sent it).  Rules of `sender` are not
 * considered.  Returns false when no rule but sniffers took the frame.
 */
bool emu_flow_steer(unsigned port, unsigned tx_port, const struct emu_qp *sender,
		    const struct emu_flow_keys *k, emu_flow_sink *sink, void *arg);

#endif
