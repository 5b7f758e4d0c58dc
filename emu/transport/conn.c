// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The connection state of an RC, UC or XRC QP: created when the QP first
 * sends to or hears from another adapter, freed at RESET and destroy.
 */
#include <stdlib.h>

#include "transport/ack_coalesce.h"
#include "transport/conn.h"
#include "transport/conn_timers.h"
#include "transport/requester.h"
#include "transport/responder.h"

struct emu_conn *conn_get(struct emu_qp *qp)
{
	struct emu_conn *c = qp->conn;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->qp = qp;
	c->port = qp->attr.port ? qp->attr.port : 1;
	resp_init(c);
	qp->conn = c;
	return c;
}

void conn_free(struct emu_qp *qp)
{
	struct emu_conn *c = qp->conn;

	if (!c)
		return;
	conn_timer_forget(c);
	conn_ack_forget(c);
	conn_link_forget(c);
	req_release(c);
	free(c);
	qp->conn = NULL;
}
