// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "transport/state.h"

#include "adapter/adapter.h"
#include "base/trace.h"
#include "transport/conn.h"

static const char *const req_names[] = {
	[REQ_IDLE] = "IDLE",
	[REQ_SEND] = "SEND",
	[REQ_WAIT_WINDOW] = "WAIT WINDOW",
	[REQ_WAIT_RD_ATOMIC] = "WAIT RD_ATOMIC",
	[REQ_WAIT_CREDITS] = "WAIT CREDITS",
	[REQ_GO_BACK] = "GO BACK",
	[REQ_RNR_WAIT] = "RNR WAIT",
	[REQ_ERROR] = "ERROR",
};

static const char *const resp_names[] = {
	[RESP_IDLE] = "IDLE",
	[RESP_EXECUTE] = "EXECUTE",
	[RESP_OUT_OF_SEQUENCE] = "OUT OF SEQUENCE",
	[RESP_DUPLICATE] = "DUPLICATE",
	[RESP_RNR_NAK] = "RNR NAK",
	[RESP_NAK] = "NAK",
	[RESP_UC_GAP] = "UC GAP",
	[RESP_UC_DROP] = "UC DROP",
	[RESP_ERROR] = "ERROR",
};

static const char *const comp_names[] = {
	[COMP_IDLE] = "IDLE",
	[COMP_ACK] = "ACK",
	[COMP_READ_RESPONSE] = "READ RESPONSE",
	[COMP_ATOMIC_ACK] = "ATOMIC ACK",
	[COMP_NAK_SEQUENCE] = "NAK SEQUENCE",
	[COMP_RNR_RETRY] = "RNR RETRY",
	[COMP_TIMEOUT_RETRY] = "TIMEOUT RETRY",
	[COMP_ERROR] = "ERROR",
	[COMP_FLUSH] = "FLUSH",
};

/* a state added to an enum needs its name */
_Static_assert(sizeof(req_names) / sizeof(req_names[0]) == REQ_NSTATES, "req_names");
_Static_assert(sizeof(resp_names) / sizeof(resp_names[0]) == RESP_NSTATES, "resp_names");
_Static_assert(sizeof(comp_names) / sizeof(comp_names[0]) == COMP_NSTATES, "comp_names");

static void enter(const struct emu_conn *c, const char *role, const char *const *names,
		  uint8_t *cur, unsigned state)
{
	if (*cur == state)
		return;
	EMU_TRACE("QPN 0x%06x %s: %s -> %s", c->qp->qpn, role, names[*cur], names[state]);
	*cur = (uint8_t)state;
}

void req_enter(struct emu_conn *c, enum req_state state)
{
	enter(c, "requester", req_names, &c->states.req, state);
}

void resp_enter(struct emu_conn *c, enum resp_state state)
{
	enter(c, "responder", resp_names, &c->states.resp, state);
}

void comp_enter(struct emu_conn *c, enum comp_state state)
{
	enter(c, "completer", comp_names, &c->states.comp, state);
}
