// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Link credits per peer adapter (transport/link_credits.h): the budget,
 * what is in flight, and the queue of QPs waiting for credits.
 */
#include "transport/link_credits.h"

#include <stdlib.h>

#include "adapter/engine.h"
#include "transport/link_grants.h"
#include "transport/psn.h"
#include "transport/conn.h"
#include "transport/conn_out.h"
#include "transport/conn_timers.h"
#include "transport/requester.h"
#include "wire/rcvbuf.h"

/* a port's link to one other adapter */
struct emu_link_peer {
	unsigned port;
	uint32_t addr;		/* IPv4, host order */
	uint64_t budget;	/* bytes of the peer's receive buffer */
	uint64_t own;		/* what this port allows itself (port_budget) */
	uint64_t grant_ns;	/* when the peer's latest grant came */
	uint64_t in_flight;	/* bytes the QPs hold */
	struct emu_conn *whead, *wtail;	/* waiting, FIFO */
	struct emu_conn *serving;	/* the one whose turn it is */
	struct emu_link_peer *next;
};

#define PEER_BUCKETS 64
static struct emu_link_peer *buckets[PEER_BUCKETS];
/* shared by the peers a failed allocation left without their own: one
 * budget for them all is smaller, never larger, than theirs */
static struct emu_link_peer spare;
static bool due;
/* QPs in some peer's queue: credits one peer returns may be what the
 * port-wide limit holds another's back for */
static unsigned waiters;

/*
 * What a port has in flight to all its peers together, within half its
 * own receive buffer: the READ responses among them arrive there, and
 * the other half is what the port grants the requests of its peers
 * (transport/link_grants.h), so both fit at once however many peers it
 * reads from.
 */
#define PORTS 8
static uint64_t port_in_flight[PORTS];

static uint64_t *port_total(unsigned port)
{
	return &port_in_flight[port % PORTS];
}

/* Whether `bytes` more fit the peer's budget and the port's limit (with
 * nothing in flight on either, one request goes whatever its size). */
static bool room_for(const struct emu_link_peer *p, uint64_t bytes)
{
	uint64_t total = *port_total(p->port);

	if (p->in_flight && p->in_flight + bytes > p->budget)
		return false;
	return !total || total + bytes <= emu_port_rcvbuf(p->port) / 2;
}

/* What a packet of `mtu` payload bytes costs: the datagram is the
 * IPv4/UDP headers, BTH and extended headers, the payload and the ICRC. */
static uint32_t packet_cost(uint32_t mtu)
{
	return emu_link_truesize(28 + EMU_ROCE_HDR_MAX + mtu + 4);
}

/*
 * A quarter of the receive buffer (the peer's is set as this port's is),
 * and no more than one QP's largest window of 4 KiB packets.  The peer's
 * buffer holds at once what this port has in flight to it, the responses to the
 * peer's own READs (its credits), and, after a timeout that was not a
 * loss, the first copies of what is sent again: three budgets fit.  The
 * peer drains its socket at the speed of its engine thread, and a deeper
 * queue would hold packets longer than a QP's local ACK timeout on a
 * loaded host.
 */
static uint64_t port_budget(unsigned port)
{
	uint64_t quarter = emu_port_rcvbuf(port) / 4;
	uint64_t window = (uint64_t)EMU_RC_WINDOW * packet_cost(4096);

	return quarter < window ? quarter : window;
}

/* Before the peer's first grant, and after an idle spell in which the
 * peer may have given this port's share to others. */
static uint64_t initial_budget(uint64_t own)
{
	uint64_t initial = (uint64_t)EMU_LINK_GRANT_INITIAL * EMU_LINK_GRANT_UNIT;

	return initial < own ? initial : own;
}

static struct emu_link_peer *peer_of(unsigned port, uint32_t addr)
{
	struct emu_link_peer **b = &buckets[(addr ^ (addr >> 8) ^ port) % PEER_BUCKETS], *p;

	for (p = *b; p; p = p->next)
		if (p->port == port && p->addr == addr)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p) {
		if (!spare.own) {
			spare.port = port;
			spare.own = port_budget(port);
			spare.budget = initial_budget(spare.own);
		}
		return &spare;
	}
	p->port = port;
	p->addr = addr;
	p->own = port_budget(port);
	p->budget = initial_budget(p->own);
	p->next = *b;
	*b = p;
	return p;
}

/* The conn's claim on the link to its current peer. */
static struct emu_link_claim *attach(struct emu_conn *c)
{
	struct emu_link_claim *k = &c->link;

	if (k->peer && k->peer != &spare && (k->peer->addr != c->peer || k->peer->port != c->port))
		conn_link_forget(c);
	if (!k->peer) {
		k->peer = peer_of(c->port, c->peer);
		k->cost = packet_cost(conn_mtu(c->qp));
		k->end = c->req.una_psn;
		k->held = 0;
	}
	return k;
}

static void enqueue(struct emu_link_peer *p, struct emu_conn *c, bool at_head)
{
	struct emu_link_claim *k = &c->link;

	k->waiting = true;
	waiters++;
	if (at_head) {
		k->wnext = p->whead;
		p->whead = c;
		if (!p->wtail)
			p->wtail = c;
	} else {
		k->wnext = NULL;
		if (p->wtail)
			p->wtail->link.wnext = c;
		else
			p->whead = c;
		p->wtail = c;
	}
	due = true;
}

static void dequeue(struct emu_link_peer *p, struct emu_conn *c)
{
	struct emu_conn **pp = &p->whead, *prev = NULL;

	while (*pp && *pp != c) {
		prev = *pp;
		pp = &(*pp)->link.wnext;
	}
	if (!*pp)
		return;
	*pp = c->link.wnext;
	if (p->wtail == c)
		p->wtail = prev;
	c->link.wnext = NULL;
	c->link.waiting = false;
	waiters--;
}

/* The conn now holds credits for [una_psn, end) only. */
static void hold(struct emu_conn *c, uint32_t end)
{
	struct emu_link_claim *k = &c->link;
	struct emu_link_peer *p = k->peer;
	int32_t n = emu_psn_diff(end, c->req.una_psn);
	uint32_t held = n > 0 ? (uint32_t)n : 0;

	k->end = n > 0 ? end : c->req.una_psn;
	if (held < k->held) {
		p->in_flight -= (uint64_t)(k->held - held) * k->cost;
		*port_total(p->port) -= (uint64_t)(k->held - held) * k->cost;
		if (waiters)
			due = true;
	} else {
		p->in_flight += (uint64_t)(held - k->held) * k->cost;
		*port_total(p->port) += (uint64_t)(held - k->held) * k->cost;
	}
	k->held = held;
}

bool conn_link_admit(struct emu_conn *c, uint32_t psn, uint32_t n)
{
	uint32_t end = emu_psn_add(psn, n);
	struct emu_link_claim *k;
	struct emu_link_peer *p;
	int32_t more;

	if (c->link.peer && emu_psn_diff(end, c->link.end) <= 0)
		return true;	/* a resend within the credits held */
	k = attach(c);
	p = k->peer;
	more = emu_psn_diff(end, k->end);
	if (more <= 0)
		return true;
	if (k->waiting)
		return false;
	if (!p->in_flight && p->grant_ns &&
	    emu_now_ns() - p->grant_ns > EMU_LINK_GRANT_IDLE_NS / 2) {
		p->budget = initial_budget(p->own);
		p->grant_ns = 0;
	}
	if (p->whead && p->serving != c) {
		enqueue(p, c, false);
		return false;
	}
	if (p->serving == c && p->whead && k->turn >= EMU_LINK_TURN) {
		enqueue(p, c, false);
		return false;
	}
	if (!room_for(p, (uint64_t)more * k->cost)) {
		/* in its turn it keeps its place */
		enqueue(p, c, p->serving == c);
		return false;
	}
	hold(c, end);
	k->turn += (uint32_t)more;
	return true;
}

void conn_link_grant(struct emu_conn *c, uint8_t code, uint64_t now_ns)
{
	struct emu_link_peer *p = c->link.peer;
	uint64_t granted = emu_link_grant_bytes(code);

	if (!p)
		return;
	if (granted > p->own)
		granted = p->own;
	if (granted > p->budget && p->whead)
		due = true;
	p->budget = granted;
	p->grant_ns = now_ns;
}

void conn_link_sync(struct emu_conn *c)
{
	if (c->link.peer)
		hold(c, c->link.end);
}

void conn_link_give_up(struct emu_conn *c)
{
	if (c->link.peer)
		hold(c, c->req.una_psn);
}

void conn_link_forget(struct emu_conn *c)
{
	struct emu_link_claim *k = &c->link;
	struct emu_link_peer *p = k->peer;

	if (!p)
		return;
	if (k->waiting)
		dequeue(p, c);
	if (p->serving == c)
		p->serving = NULL;
	p->in_flight -= (uint64_t)k->held * k->cost;
	*port_total(p->port) -= (uint64_t)k->held * k->cost;
	if (waiters) {
		due = true;
		/* a command may have freed them: the engine serves the queue */
		emu_engine_kick();
	}
	k->held = 0;
	k->peer = NULL;
}

/* Serves the peer's queue while its head finds room. */
static int serve_peer(struct emu_link_peer *p, uint64_t now_ns)
{
	int served = 0;

	for (struct emu_conn *c = p->whead; c; c = p->whead) {
		if (!room_for(p, c->link.cost))
			break;
		dequeue(p, c);
		c->link.turn = 0;
		p->serving = c;
		req_transmit(c, now_ns);
		p->serving = NULL;
		served++;
		/* back at the head: it found no room in its turn */
		if (p->whead == c)
			break;
	}
	return served;
}

int conn_link_serve(uint64_t now_ns)
{
	int served = 0;

	if (!due)
		return 0;
	due = false;
	for (unsigned i = 0; i < PEER_BUCKETS; i++)
		for (struct emu_link_peer *p = buckets[i]; p; p = p->next)
			if (p->whead)
				served += serve_peer(p, now_ns);
	if (spare.whead)
		served += serve_peer(&spare, now_ns);
	return served;
}

bool conn_link_due(void)
{
	return due;
}
