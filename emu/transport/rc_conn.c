// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The RC/UC state of a QP (created when the QP first sends to or hears
 * from another adapter, freed at RESET and destroy), the list of conns
 * with a running timer, the coalesced ACKs of a receive batch, and the
 * packets going out.
 */
#include <stdlib.h>
#include <sys/uio.h>

#include "adapter/engine.h"
#include "base/config.h"
#include "transport/psn.h"
#include "transport/rc.h"
#include "transport/xrc_wire.h"

static struct emu_rc_conn *timed;	/* conns with a timer running */
#define ACK_LIST 64
static struct emu_rc_conn *ack_list[ACK_LIST];
static unsigned nacks;

struct emu_rc_conn *rc_conn_get(struct emu_qp *qp)
{
	struct emu_rc_conn *c = qp->conn;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->qp = qp;
	c->port = qp->port ? qp->port : 1;
	rc_resp_init(c);
	qp->conn = c;
	return c;
}

static void timer_unlink(struct emu_rc_conn *c)
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

void rc_conn_free(struct emu_qp *qp)
{
	struct emu_rc_conn *c = qp->conn;

	if (!c)
		return;
	timer_unlink(c);
	for (unsigned i = 0; i < nacks; i++)
		if (ack_list[i] == c)
			ack_list[i] = NULL;
	rc_link_forget(c);
	rc_req_release(c);
	free(c);
	qp->conn = NULL;
}

void rc_timer_watch(struct emu_rc_conn *c)
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
		timer_unlink(c);
	}
}

uint64_t rc_timers_deadline(void)
{
	uint64_t d = UINT64_MAX;

	for (struct emu_rc_conn *c = timed; c; c = c->tnext) {
		if (c->req.rnr_due_ns && c->req.rnr_due_ns < d)
			d = c->req.rnr_due_ns;
		if (c->req.retry_due_ns && c->req.retry_due_ns < d)
			d = c->req.retry_due_ns;
	}
	return d;
}

int rc_timers_run(uint64_t now_ns)
{
	struct emu_rc_conn *c = timed, *next;
	int work = 0;

	for (; c; c = next) {
		next = c->tnext;
		if ((c->req.rnr_due_ns && c->req.rnr_due_ns <= now_ns) ||
		    (c->req.retry_due_ns && c->req.retry_due_ns <= now_ns)) {
			rc_comp_timer(c, now_ns);
			work++;
			/* the conn may have left the list (or the list changed) */
			next = c->timed ? c->tnext : timed;
			if (next == c)
				next = c->tnext;
		}
	}
	return work;
}

void rc_ack_later(struct emu_rc_conn *c)
{
	c->resp.ack_pending = true;
	if (c->ack_listed)
		return;
	if (nacks == ACK_LIST) {
		rc_resp_send_ack(c);
		return;
	}
	c->ack_listed = true;
	ack_list[nacks++] = c;
}

void rc_flush_acks(void)
{
	for (unsigned i = 0; i < nacks; i++) {
		struct emu_rc_conn *c = ack_list[i];

		if (!c)
			continue;
		c->ack_listed = false;
		if (c->resp.ack_pending)
			rc_resp_send_ack(c);
	}
	nacks = 0;
}

uint32_t rc_mtu(const struct emu_qp *qp)
{
	unsigned m = qp->mtu >= 1 && qp->mtu <= 5 ? qp->mtu : 5;

	return 128u << m;
}

/* The BTH (its pad for a payload of len bytes) and the extended headers
 * of a packet into hdr; returns their length. */
static size_t packet_header(struct emu_rc_conn *c, uint8_t *hdr, uint8_t opcode, uint32_t psn,
			    bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
			    uint64_t len)
{
	struct emu_bth bth = {
		.opcode = opcode,
		.se = se,
		.pad = (uint8_t)((4 - (len & 3)) & 3),
		.pkey = EMU_DEFAULT_PKEY,
		.dest_qpn = c->qp->dest_qpn,
		.psn = psn,
		.ack_req = ack_req,
	};
	size_t xrc = emu_xrc_wire_out(c->qp, c->req.xrc_srqn, &bth.opcode,
				      hdr + EMU_BTH_BYTES);

	emu_bth_put(hdr, &bth);
	memcpy(hdr + EMU_BTH_BYTES + xrc, ext, ext_len);
	return EMU_BTH_BYTES + xrc + ext_len;
}

void rc_packet_out(struct emu_rc_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
		   bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
		   const uint8_t *payload, uint32_t len)
{
	uint8_t hdr[EMU_ROCE_HDR_MAX];
	struct iovec iov = { (void *)payload, len };
	size_t hdr_len = packet_header(c, hdr, opcode, psn, ack_req, se, ext, ext_len, len);

	emu_link_queue(c->port, dst, hdr, hdr_len, &iov, len ? 1 : 0);
}

int rc_packet_out_ref(struct emu_rc_conn *c, uint32_t dst, uint8_t opcode, uint32_t psn,
		      bool ack_req, bool se, const uint8_t *ext, size_t ext_len,
		      const struct iovec *iov, int iovcnt)
{
	uint8_t hdr[EMU_ROCE_HDR_MAX];
	uint64_t len = 0;
	size_t hdr_len;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	hdr_len = packet_header(c, hdr, opcode, psn, ack_req, se, ext, ext_len, len);
	return emu_link_queue_ref(c->port, dst, hdr, hdr_len, iov, iovcnt);
}
