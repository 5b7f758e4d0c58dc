// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * ACK coalescing: the ACKs the responder owes for the packets of one
 * receive batch go out after the batch, one per connection (an ACK
 * acknowledges every PSN up to its own).
 */
#include "transport/ack_coalesce.h"

#include "transport/conn.h"
#include "transport/responder.h"

#define ACK_LIST 64
static struct emu_conn *ack_list[ACK_LIST];
static unsigned nacks;

void conn_ack_later(struct emu_conn *c)
{
	c->resp.ack_pending = true;
	if (c->ack_listed)
		return;
	if (nacks == ACK_LIST) {
		resp_send_ack(c);
		return;
	}
	c->ack_listed = true;
	ack_list[nacks++] = c;
}

void conn_flush_acks(void)
{
	for (unsigned i = 0; i < nacks; i++) {
		struct emu_conn *c = ack_list[i];

		if (!c)
			continue;
		c->ack_listed = false;
		if (c->resp.ack_pending)
			resp_send_ack(c);
	}
	nacks = 0;
}

void conn_ack_forget(struct emu_conn *c)
{
	for (unsigned i = 0; i < nacks; i++)
		if (ack_list[i] == c)
			ack_list[i] = NULL;
}
