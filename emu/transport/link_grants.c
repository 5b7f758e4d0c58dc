// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A port's receive buffer shared among its active peers
 * (transport/link_grants.h).
 */
#include "transport/link_grants.h"

#include <stdbool.h>
#include <stdlib.h>

#include "wire/rcvbuf.h"

/* IBTA Vol. 1 table 45: the credit count each AETH code stands for */
static const uint16_t credit_count[31] = {
	0,    1,    2,    3,    4,    6,    8,     12,    16,    24,    32,
	48,   64,   96,   128,  192,  256,  384,   512,   768,   1024,  1536,
	2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};
#define CODE_NONE 31

/* what one peer sends this port, of one kind of traffic */
struct grantee {
	unsigned port;
	uint32_t addr;
	enum emu_link_grant_kind kind;
	uint64_t last_ns;	/* its latest request */
	uint32_t units;		/* granted in the latest ACK */
	struct grantee *next;
};

static struct grantee *grantees;

/* The largest code whose count does not exceed `units`. */
static uint8_t code_at_most(uint64_t units)
{
	uint8_t code = 0;

	while (code + 1 < CODE_NONE && credit_count[code + 1] <= units)
		code++;
	return code;
}

uint64_t emu_link_grant_bytes(uint8_t code)
{
	code &= 0x1f;
	if (code == CODE_NONE)
		return UINT64_MAX;
	return (uint64_t)credit_count[code] * EMU_LINK_GRANT_UNIT;
}

static struct grantee *grantee_of(unsigned port, uint32_t addr, enum emu_link_grant_kind kind)
{
	struct grantee *g;

	for (g = grantees; g; g = g->next)
		if (g->port == port && g->addr == addr && g->kind == kind)
			return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->port = port;
	g->addr = addr;
	g->kind = kind;
	g->next = grantees;
	grantees = g;
	return g;
}

/* The units `me` may hold now: an equal share of the port's pool among
 * the active grantees, within what the others hold; counts it active. */
static uint64_t share_units(struct grantee *me, uint64_t pool, uint64_t now_ns)
{
	uint64_t others = 0, share;
	unsigned active = 1;

	me->last_ns = now_ns;
	for (struct grantee *g = grantees; g; g = g->next) {
		if (g == me || g->port != me->port)
			continue;
		if (now_ns - g->last_ns > EMU_LINK_GRANT_IDLE_NS) {
			/* idle: its sender starts again from the initial grant */
			g->units = 0;
			continue;
		}
		active++;
		/* one that had no grant yet may use the initial one */
		others += g->units ? g->units : EMU_LINK_GRANT_INITIAL;
	}
	share = pool / active;
	if (others + share > pool)
		share = others < pool ? pool - others : 0;
	return share;
}

uint8_t emu_link_grant_code(unsigned port, uint32_t addr, uint64_t now_ns)
{
	uint64_t pool = emu_port_rcvbuf(port) / 2 / EMU_LINK_GRANT_UNIT;
	struct grantee *me = grantee_of(port, addr, EMU_LINK_GRANT_RC);
	uint8_t code;

	if (!me || !pool)
		return CODE_NONE;	/* the requester keeps its own budget */
	code = code_at_most(share_units(me, pool, now_ns));
	me->units = credit_count[code];
	return code;
}

uint64_t emu_link_grant_datagram_bytes(unsigned port, uint32_t addr, uint64_t now_ns)
{
	uint64_t pool = emu_port_rcvbuf(port) / 2 / EMU_LINK_GRANT_UNIT;
	struct grantee *me = grantee_of(port, addr, EMU_LINK_GRANT_DATAGRAM);

	if (!me || !pool)
		return (uint64_t)EMU_LINK_GRANT_INITIAL * EMU_LINK_GRANT_UNIT;
	me->units = (uint32_t)share_units(me, pool, now_ns);
	return (uint64_t)me->units * EMU_LINK_GRANT_UNIT;
}
