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

/* what one peer sends this port */
struct grantee {
	unsigned port;
	uint32_t addr;
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

static struct grantee *grantee_of(unsigned port, uint32_t addr)
{
	struct grantee *g;

	for (g = grantees; g; g = g->next)
		if (g->port == port && g->addr == addr)
			return g;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->port = port;
	g->addr = addr;
	g->next = grantees;
	grantees = g;
	return g;
}

uint8_t emu_link_grant_code(unsigned port, uint32_t addr, uint64_t now_ns)
{
	uint64_t pool = emu_port_rcvbuf(port) / 2 / EMU_LINK_GRANT_UNIT;
	uint64_t others = 0, share;
	unsigned active = 1;
	struct grantee *me = grantee_of(port, addr);

	if (!me || !pool)
		return CODE_NONE;	/* the requester keeps its own budget */
	me->last_ns = now_ns;
	for (struct grantee *g = grantees; g; g = g->next) {
		if (g == me || g->port != port)
			continue;
		if (now_ns - g->last_ns > EMU_LINK_GRANT_IDLE_NS) {
			/* idle: its requester starts again from the initial grant */
			g->units = 0;
			continue;
		}
		active++;
		/* one that had no ACK yet may use the initial grant */
		others += g->units ? g->units : EMU_LINK_GRANT_INITIAL;
	}
	share = pool / active;
	if (others + share > pool)
		share = others < pool ? pool - others : 0;
	me->units = credit_count[code_at_most(share)];
	return code_at_most(share);
}
