// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The list of connections with a timer running (the requester's local
 * ACK timer or an RNR wait): the engine sleeps until the earliest and
 * hands the due ones to the completer.
 */
#include "transport/conn_timers.h"

#include <stdint.h>

#include "adapter/engine.h"
#include "transport/completer.h"
#include "transport/conn.h"

static struct emu_conn *timed;	/* conns with a timer running */

void conn_timer_forget(struct emu_conn *c)
{
	if (!c->timed)
		return;
	if (c->tprev)
		c->tprev->tnext = c->tnext;
	else
		timed = c->tnext;
	if (c->tnext)
		c->tnext->tprev = c->tprev;
	c->tnext = c->tprev = NULL;
	c->timed = false;
}

void conn_timer_watch(struct emu_conn *c)
{
	bool running = c->req.retry_due_ns || c->req.rnr_due_ns;

	if (running && !c->timed) {
		c->tnext = timed;
		c->tprev = NULL;
		if (timed)
			timed->tprev = c;
		timed = c;
		c->timed = true;
		emu_engine_kick();
	} else if (!running) {
		conn_timer_forget(c);
	}
}

uint64_t conn_timers_deadline(void)
{
	uint64_t d = UINT64_MAX;

	for (struct emu_conn *c = timed; c; c = c->tnext) {
		if (c->req.rnr_due_ns && c->req.rnr_due_ns < d)
			d = c->req.rnr_due_ns;
		if (c->req.retry_due_ns && c->req.retry_due_ns < d)
			d = c->req.retry_due_ns;
	}
	return d;
}

int conn_timers_run(uint64_t now_ns)
{
	struct emu_conn *c = timed, *next;
	int work = 0;

	for (; c; c = next) {
		next = c->tnext;
		if ((c->req.rnr_due_ns && c->req.rnr_due_ns <= now_ns) ||
		    (c->req.retry_due_ns && c->req.retry_due_ns <= now_ns)) {
			comp_timer(c, now_ns);
			work++;
			/* the conn may have left the list (or the list changed) */
			next = c->timed ? c->tnext : timed;
			if (next == c)
				next = c->tnext;
		}
	}
	return work;
}
