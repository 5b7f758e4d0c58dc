// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Datagram credits (transport/datagram_credits.h): the sender's links, the
 * receiver's sources, and the credit packets between them.
 */
#include "transport/datagram_credits.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "adapter/engine.h"
#include "adapter/objects.h"
#include "base/config.h"
#include "transport/link_grants.h"
#include "wire/rcvbuf.h"

#define CREDIT_PAYLOAD_BYTES 24
#define KIND_REQUEST 1
#define KIND_UPDATE 2
#define BUCKETS 64

/* The sending side: this port's link to one peer adapter. */
struct dgram_link {
	unsigned port;
	uint32_t addr;		/* IPv4, host order */
	uint32_t session;	/* this process's count on the link */
	uint64_t sent;		/* bytes charged since the link began */
	uint64_t drained;	/* of them, what the peer's latest update read */
	uint64_t share;		/* what it may have in flight beyond that */
	uint64_t update_ns;	/* when that update came (0: none yet) */
	uint64_t asked_ns;	/* the unanswered request's time (0: none) */
	uint64_t wait_ns;	/* since when QPs wait (0: none waits) */
	bool silent;		/* answered no request for EMU_DGRAM_HOQ_LIFE_NS */
	uint32_t *waiters;	/* QPNs, in the order they came */
	unsigned nwait, wait_cap;
	struct dgram_link *next;	/* in its bucket */
	struct dgram_link *wnext;	/* in the list of links with waiters */
};

/* The receiving side: one peer adapter's datagrams to this port. */
struct dgram_source {
	unsigned port;
	uint32_t addr;
	uint32_t session;	/* the sender's, from its latest request */
	uint64_t drained;	/* bytes of its paced packets read */
	uint64_t granted_at;	/* drained as of the latest update */
	uint64_t share;		/* granted in it */
	bool due;		/* an update is to go */
	struct dgram_source *next;	/* in its bucket */
	struct dgram_source *dnext;	/* in the list of updates due */
};

static struct dgram_link *links[BUCKETS];
static struct dgram_source *sources[BUCKETS];
static struct dgram_link *waiting;	/* links with waiters */
static struct dgram_source *due;	/* sources an update is due to */
static unsigned nlinks, nsources;

static unsigned bucket(unsigned port, uint32_t addr)
{
	return (addr ^ (addr >> 8) ^ (addr >> 16) ^ port) % BUCKETS;
}

/* ---- the credit packets ---- */

static void send_credit(unsigned port, uint32_t addr, uint8_t kind, uint32_t session,
			uint64_t a, uint64_t b)
{
	uint8_t bth[EMU_BTH_BYTES], payload[CREDIT_PAYLOAD_BYTES] = { kind };
	struct emu_bth h = {
		.opcode = EMU_OP_DATAGRAM_CREDIT,
		.pkey = EMU_DEFAULT_PKEY,
	};
	struct iovec iov = { payload, sizeof(payload) };

	emu_bth_put(bth, &h);
	emu_put_be32(payload + 4, session);
	emu_put_be64(payload + 8, a);
	emu_put_be64(payload + 16, b);
	(void)emu_link_queue(port, addr, bth, sizeof(bth), &iov, 1);
}

/* ---- the sending side ---- */

/* Half the port's own buffer, the pool the peer shares (its buffer is
 * set as this one's is): no update grants more. */
static uint64_t share_cap(unsigned port)
{
	return emu_port_rcvbuf(port) / 2;
}

static uint64_t initial_share(unsigned port)
{
	uint64_t initial = (uint64_t)EMU_LINK_GRANT_INITIAL * EMU_LINK_GRANT_UNIT;
	uint64_t cap = share_cap(port);

	return cap && cap < initial ? cap : initial;
}

static void ask(struct dgram_link *l, uint64_t now_ns)
{
	l->asked_ns = now_ns;
	send_credit(l->port, l->addr, KIND_REQUEST, l->session, l->sent, 0);
}

static struct dgram_link *link_find(unsigned port, uint32_t addr)
{
	for (struct dgram_link *l = links[bucket(port, addr)]; l; l = l->next)
		if (l->port == port && l->addr == addr)
			return l;
	return NULL;
}

static struct dgram_link *link_of(unsigned port, uint32_t addr)
{
	struct dgram_link **b = &links[bucket(port, addr)], *l = link_find(port, addr);

	if (l)
		return l;
	if (nlinks >= EMU_DGRAM_TRACKED_MAX || !(l = calloc(1, sizeof(*l))))
		return NULL;
	l->port = port;
	l->addr = addr;
	/* differs from any earlier process's at this address */
	l->session = (uint32_t)(emu_now_ns() ^ ((uint64_t)getpid() << 20)) | 1;
	l->share = initial_share(port);
	l->next = *b;
	*b = l;
	nlinks++;
	/* the receiver starts its count from here */
	ask(l, emu_now_ns());
	return l;
}

static bool room_for(const struct dgram_link *l, uint64_t bytes)
{
	return l->sent == l->drained || l->sent + bytes <= l->drained + l->share;
}

/* Removes qpn from the waiters; whether it was one. */
static bool unqueue(struct dgram_link *l, uint32_t qpn)
{
	for (unsigned i = 0; i < l->nwait; i++)
		if (l->waiters[i] == qpn) {
			memmove(&l->waiters[i], &l->waiters[i + 1],
				(l->nwait - i - 1) * sizeof(l->waiters[0]));
			l->nwait--;
			return true;
		}
	return false;
}

static bool enqueue(struct dgram_link *l, uint32_t qpn, uint64_t now_ns)
{
	for (unsigned i = 0; i < l->nwait; i++)
		if (l->waiters[i] == qpn)
			return true;
	if (l->nwait == l->wait_cap) {
		unsigned cap = l->wait_cap ? 2 * l->wait_cap : 8;
		uint32_t *w = realloc(l->waiters, cap * sizeof(*w));

		if (!w)
			return false;
		l->waiters = w;
		l->wait_cap = cap;
	}
	l->waiters[l->nwait++] = qpn;
	if (!l->wait_ns) {
		l->wait_ns = now_ns;
		l->wnext = waiting;
		waiting = l;
	}
	return true;
}

static void leave_waiting_list(struct dgram_link *l)
{
	for (struct dgram_link **pp = &waiting; *pp; pp = &(*pp)->wnext)
		if (*pp == l) {
			*pp = l->wnext;
			break;
		}
	l->wnext = NULL;
	l->wait_ns = 0;
}

/* Every waiter tries again, in the order it came; those that find no
 * room queue again. */
static void wake(struct dgram_link *l)
{
	for (unsigned i = 0; i < l->nwait; i++) {
		struct emu_qp *qp = emu_qp_by_qpn(l->waiters[i]);

		if (qp)
			emu_qp_schedule(qp);
	}
	l->nwait = 0;
	leave_waiting_list(l);
}

int emu_dgram_credits_take(unsigned port, uint32_t addr, uint64_t bytes, uint32_t qpn)
{
	struct dgram_link *l;
	uint64_t now_ns;

	if (!emu_cfg.datagram_credits || !(l = link_of(port, addr)))
		return 0;	/* unpaced */
	now_ns = emu_now_ns();
	if (l->silent) {
		/* as a switch discards what waited out its head-of-queue
		 * lifetime: the sender's work completes, nothing is sent */
		if (now_ns - l->asked_ns >= EMU_DGRAM_PROBE_NS)
			ask(l, now_ns);
		return EHOSTUNREACH;
	}
	/* after an idle spell the peer may have given this share to others */
	if (l->sent == l->drained && l->update_ns &&
	    now_ns - l->update_ns > EMU_LINK_GRANT_IDLE_NS / 2)
		l->share = initial_share(port);
	if (room_for(l, bytes) && (!l->nwait || unqueue(l, qpn))) {
		l->sent += bytes;
		return 0;
	}
	if (!enqueue(l, qpn, now_ns))
		return 0;	/* no memory to wait: unpaced */
	if (!l->asked_ns || now_ns - l->asked_ns >= EMU_DGRAM_ASK_AGAIN_NS)
		ask(l, now_ns);
	return EAGAIN;
}

static void take_update(unsigned port, uint32_t addr, uint32_t session, uint64_t drained,
			uint64_t share)
{
	struct dgram_link *l = link_find(port, addr);

	if (!l || session != l->session)
		return;	/* for another process that was here */
	if (drained > l->sent)
		drained = l->sent;
	if (drained > l->drained)
		l->drained = drained;
	l->share = share < share_cap(port) ? share : share_cap(port);
	l->update_ns = emu_now_ns();
	l->asked_ns = 0;
	l->silent = false;
	if (l->nwait)
		wake(l);
}

/* Asks again where a request went unanswered; takes a peer that answered
 * none for the head-of-queue lifetime as one that drains nothing. */
static int serve_waiting(uint64_t now_ns)
{
	struct dgram_link *l = waiting, *next;
	int work = 0;

	for (; l; l = next) {
		next = l->wnext;
		if (now_ns - l->wait_ns >= EMU_DGRAM_HOQ_LIFE_NS) {
			l->silent = true;
			wake(l);
			work++;
		} else if (now_ns - l->asked_ns >= EMU_DGRAM_ASK_AGAIN_NS) {
			ask(l, now_ns);
			work++;
		}
	}
	return work;
}

/* ---- the receiving side ---- */

static struct dgram_source *source_find(unsigned port, uint32_t addr)
{
	for (struct dgram_source *s = sources[bucket(port, addr)]; s; s = s->next)
		if (s->port == port && s->addr == addr)
			return s;
	return NULL;
}

static struct dgram_source *source_of(unsigned port, uint32_t addr)
{
	struct dgram_source **b = &sources[bucket(port, addr)], *s = source_find(port, addr);

	if (s)
		return s;
	if (nsources >= EMU_DGRAM_TRACKED_MAX || !(s = calloc(1, sizeof(*s))))
		return NULL;
	s->port = port;
	s->addr = addr;
	s->next = *b;
	*b = s;
	nsources++;
	return s;
}

static void mark_due(struct dgram_source *s)
{
	if (s->due)
		return;
	s->due = true;
	s->dnext = due;
	due = s;
}

void emu_dgram_credits_count(const struct emu_rx *rx)
{
	struct dgram_source *s = source_find(rx->port, rx->src);

	if (!s)
		return;	/* it asks before it needs an update */
	s->drained += emu_link_truesize(rx->len + EMU_ICRC_BYTES);
	/* a quarter of its share used since the last update: the next one
	 * goes now, so that it has three quarters left while this port
	 * drains */
	if (s->drained - s->granted_at >= s->share / 4)
		mark_due(s);
}

static void take_request(unsigned port, uint32_t addr, uint32_t session, uint64_t sent)
{
	struct dgram_source *s = source_of(port, addr);

	if (!s) {
		/* untracked: what it sent is all read or lost by now */
		send_credit(port, addr, KIND_UPDATE, session, sent,
			    emu_link_grant_datagram_bytes(port, addr, emu_now_ns()));
		return;
	}
	if (session != s->session) {
		/* a new sender at that address: a new count */
		s->session = session;
		s->drained = sent;
	} else if (sent > s->drained) {
		/* what never arrived */
		s->drained = sent;
	}
	mark_due(s);
}

void emu_dgram_credits_receive(const struct emu_rx *rx)
{
	const uint8_t *p = rx->pkt + EMU_BTH_BYTES;
	uint32_t session;

	if (rx->len < EMU_BTH_BYTES + CREDIT_PAYLOAD_BYTES) {
		emu_link_count_refused(rx->port);
		return;
	}
	session = emu_get_be32(p + 4);
	if (p[0] == KIND_REQUEST)
		take_request(rx->port, rx->src, session, emu_get_be64(p + 8));
	else if (p[0] == KIND_UPDATE)
		take_update(rx->port, rx->src, session, emu_get_be64(p + 8), emu_get_be64(p + 16));
	else
		emu_link_count_refused(rx->port);
}

static int send_updates(uint64_t now_ns)
{
	int n = 0;

	for (struct dgram_source *s = due, *next; s; s = next, n++) {
		next = s->dnext;
		s->due = false;
		s->dnext = NULL;
		s->share = emu_link_grant_datagram_bytes(s->port, s->addr, now_ns);
		/* what the sender takes of it (its own cap, the same setting
		 * as here), of which the next update is due at a quarter */
		if (s->share > share_cap(s->port))
			s->share = share_cap(s->port);
		s->granted_at = s->drained;
		send_credit(s->port, s->addr, KIND_UPDATE, s->session, s->drained, s->share);
	}
	due = NULL;
	return n;
}

/* ---- the engine's ---- */

int emu_dgram_credits_poll(uint64_t now_ns)
{
	int work = send_updates(now_ns);

	return waiting ? work + serve_waiting(now_ns) : work;
}

uint64_t emu_dgram_credits_deadline(void)
{
	uint64_t d = UINT64_MAX;

	if (due)
		return 0;
	for (const struct dgram_link *l = waiting; l; l = l->wnext) {
		uint64_t again = l->asked_ns + EMU_DGRAM_ASK_AGAIN_NS;
		uint64_t silent = l->wait_ns + EMU_DGRAM_HOQ_LIFE_NS;

		if (again < d)
			d = again;
		if (silent < d)
			d = silent;
	}
	return d;
}
