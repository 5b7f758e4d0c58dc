// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The hub's conductor of peer restarts (see fabric_conductor.h). */
#define _GNU_SOURCE
#include "fabric_conductor.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const phase_names[] = { "idle", "waiting for it to join",
					   "waiting for the survivors' new QPs",
					   "waiting for it to connect" };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t next_random(struct fab_conductor *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Restart j falls at a random point of the j-th of `planned` equal
 * stretches of the first 80 % of the hub's operations (at least one
 * done: the traffic flows). */
static void draw_due(struct fab_conductor *c)
{
	uint64_t stretch = c->nominal * 4 / 5 / c->planned;

	c->due = (uint64_t)c->done * stretch + (stretch ? next_random(c) % stretch : 0);
	if (!c->due)
		c->due = 1;
}

int fab_conductor_init(struct fab_conductor *c, struct fab_star *s, unsigned restarts,
		       uint64_t seed, uint64_t nominal, size_t row)
{
	*c = (struct fab_conductor){ .star = s, .planned = restarts, .nominal = nominal,
				     .rng = seed, .row = row };
	if (restarts > FAB_MAX_RESTARTS) {
		fprintf(stderr, "fabric: at most %d restarts in a run\n", FAB_MAX_RESTARTS);
		return -1;
	}
	c->table = calloc(s->hosts, row);
	c->msg = malloc(row);
	if (!c->table || !c->msg) {
		fprintf(stderr, "fabric: no memory for the conductor\n");
		return -1;
	}
	if (restarts)
		draw_due(c);
	return 0;
}

void fab_conductor_free(struct fab_conductor *c)
{
	free(c->table);
	free(c->msg);
	c->table = c->msg = NULL;
}

/* Message m to every host but `except` (the hub's own host side too)
 * and one killed, not yet back. */
static int tell_all(struct fab_conductor *c, unsigned except, const struct fab_msg *m,
		    const void *payload)
{
	for (unsigned h = 0; h < c->star->hosts; h++)
		if (h != except && c->star->fd[h] >= 0 && fab_tell_host(c->star, h, m, payload))
			return -1;
	return 0;
}

static void enter(struct fab_conductor *c, enum fab_phase p)
{
	c->phase = p;
	c->phase_ns = now_ns();
}

static int kill_one(struct fab_conductor *c)
{
	unsigned v = 1 + (unsigned)(next_random(c) % (c->star->hosts - 1));
	struct fab_msg m = { .type = FAB_KILLED, .host = v, .arg = c->done + 1 };

	c->victim = v;
	c->victims[c->done] = v;
	memset(c->done_said, 0, sizeof(c->done_said));
	/* the survivors learn of it first: no error completion of theirs can
	 * come before they know the peer is gone */
	if (tell_all(c, v, &m, NULL))
		return -1;
	if (kill(c->star->pid[v], SIGKILL)) {
		perror("fabric: kill a host");
		return -1;
	}
	fab_star_drop(c->star, v);
	enter(c, FAB_DEAD);
	printf("fabric all2all: restart %u of %u: host %u killed\n", c->done + 1, c->planned, v);
	fflush(stdout);
	return 0;
}

static int finish(struct fab_conductor *c, bool failed)
{
	struct fab_msg m = { .type = FAB_FINISH, .arg = failed };

	c->finished = true;
	c->failed = failed;
	return tell_all(c, c->star->hosts, &m, NULL);
}

static bool all_done(const struct fab_conductor *c)
{
	for (unsigned h = 0; h < c->star->hosts; h++)
		if (!c->done_said[h])
			return false;
	return true;
}

static int out_of_turn(const struct fab_conductor *c, unsigned from, const struct fab_msg *m)
{
	fprintf(stderr, "fabric: host %u sent message %u out of turn (restart of host %u: %s)\n",
		from, m->type, c->victim, phase_names[c->phase]);
	return -1;
}

/* Host v, started again, sent its new QPs: the survivors make theirs. */
static int take_join(struct fab_conductor *c, unsigned from, const struct fab_msg *m)
{
	struct fab_msg out = { .type = FAB_JOIN, .host = from, .len = m->len };

	if (c->phase != FAB_DEAD || from != c->victim || m->len != c->row)
		return out_of_turn(c, from, m);
	enter(c, FAB_REPLACING);
	c->replies = 0;
	return tell_all(c, from, &out, c->msg);
}

static int take_replaced(struct fab_conductor *c, unsigned from, const struct fab_msg *m)
{
	struct fab_msg out = { .type = FAB_TABLE, .host = c->victim, .arg = c->done + 1,
			       .len = (uint32_t)(c->star->hosts * c->row) };

	if (c->phase != FAB_REPLACING || from == c->victim || m->len != c->row)
		return out_of_turn(c, from, m);
	memcpy(c->table + from * c->row, c->msg, c->row);
	if (++c->replies < c->star->hosts - 1)
		return 0;
	enter(c, FAB_CONNECTING);
	return fab_tell_host(c->star, c->victim, &out, c->table);
}

static int take_ready(struct fab_conductor *c, unsigned from, const struct fab_msg *m)
{
	struct fab_msg out = { .type = FAB_READY, .host = from };

	if (c->phase != FAB_CONNECTING || from != c->victim)
		return out_of_turn(c, from, m);
	c->done++;
	enter(c, FAB_IDLE);
	if (c->done < c->planned)
		draw_due(c);
	return tell_all(c, from, &out, NULL);
}

static int take(struct fab_conductor *c, unsigned from, const struct fab_msg *m)
{
	switch (m->type) {
	case FAB_JOIN:
		return take_join(c, from, m);
	case FAB_REPLACED:
		return take_replaced(c, from, m);
	case FAB_READY:
		return take_ready(c, from, m);
	case FAB_DONE:
		/* a host that said it before it knew of the latest kill is
		 * not done: its QPs to the killed host are made anew */
		if (m->arg == c->done + (c->phase != FAB_IDLE))
			c->done_said[from] = true;
		return 0;
	case FAB_FAILED:
		fprintf(stderr, "fabric: host %u failed: the traffic ends\n", from);
		return c->finished ? 0 : finish(c, true);
	default:
		return out_of_turn(c, from, m);
	}
}

static int step(struct fab_conductor *c, uint64_t progress)
{
	struct fab_msg m;
	unsigned from;
	int rc;

	while ((rc = fab_hear_hosts(c->star, &from, &m, c->msg, c->row)) > 0)
		if (take(c, from, &m))
			return -1;
	if (rc < 0 || c->finished)
		return rc;
	if (c->phase != FAB_IDLE) {
		if (now_ns() - c->phase_ns <= FAB_RESTART_MS * 1000000ull)
			return 0;
		fprintf(stderr, "fabric: restart %u of host %u: still %s after %d ms\n",
			c->done + 1, c->victim, phase_names[c->phase], FAB_RESTART_MS);
		return -1;
	}
	if (c->done < c->planned)
		return progress >= c->due ? kill_one(c) : 0;
	return all_done(c) ? finish(c, false) : 0;
}

int fab_conductor_step(struct fab_conductor *c, uint64_t progress)
{
	if (!step(c, progress))
		return 0;
	/* what failed was printed: the others stop their traffic */
	if (!c->finished)
		finish(c, true);
	return -1;
}
