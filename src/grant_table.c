// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * What the handles of each queue hold: its wrid table and, for a send
 * queue, its BlueFlame register. One grant per live queue, keyed by the
 * queue's ring address (one queue per ring at a time).
 *
 * Handles are plain memory a program may copy, so a release cannot trust
 * the handle alone: a stale copy names resources that may belong to
 * someone else by now. Every send-queue grant carries a ticket that its
 * handles carry too (struct mlx4dv_sq_ring.flags bits 8..31); a release
 * whose ticket is not the live grant's gives back nothing. A receive
 * handle has no field for a ticket; its release must name the grant's
 * table. Initialising a queue again while its grant is live hands out the
 * same resources again (nothing is leaked, and a copy still in use keeps
 * working).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct queue_grant {
	const void		*queue;
	struct ibv_context	*context;
	uint64_t		*wrid;
	uint32_t		wrid_cnt;
	uint32_t		ticket;
	uint8_t			*bf_reg;
	uint32_t		bf_reg_size;
};

enum { TICKET_MASK = 0xffffff };

static pthread_mutex_t grant_lock = PTHREAD_MUTEX_INITIALIZER;
static struct queue_grant *grants;
static size_t grants_used, grants_cap;
static uint32_t last_ticket;

static struct queue_grant *grant_find(const void *queue)
{
	for (size_t i = 0; i < grants_used; i++)
		if (grants[i].queue == queue)
			return &grants[i];
	return NULL;
}

static void grant_free(struct queue_grant *g)
{
	free(g->wrid);
	if (g->bf_reg)
		mlx4dv_priv_bf_reg_release(g->bf_reg);
	*g = grants[--grants_used];
}

static struct queue_grant *grant_new(const void *queue,
				     struct ibv_context *context)
{
	struct queue_grant *g;

	if (grants_used == grants_cap) {
		size_t cap = grants_cap ? grants_cap * 2 : 16;
		struct queue_grant *more = realloc(grants, cap * sizeof(*more));

		if (!more)
			return NULL;
		grants = more;
		grants_cap = cap;
	}
	g = &grants[grants_used++];
	memset(g, 0, sizeof(*g));
	g->queue = queue;
	g->context = context;
	last_ticket = (last_ticket + 1) & TICKET_MASK;
	if (!last_ticket)
		last_ticket = 1;
	g->ticket = last_ticket;
	return g;
}

/* The grant's wrid table for count entries, zeroed (a new lap of the
 * queue starts at count 0). */
static int grant_wrid(struct queue_grant *g, uint32_t count)
{
	if (g->wrid && g->wrid_cnt != count) {
		free(g->wrid);
		g->wrid = NULL;
	}
	if (!g->wrid) {
		g->wrid = mlx4dv_priv_wrid_alloc(count);
		if (!g->wrid)
			return ENOMEM;
		g->wrid_cnt = count;
		return 0;
	}
	memset(g->wrid, 0, (size_t)count * sizeof(*g->wrid));
	return 0;
}

int mlx4dv_priv_grant_take(const struct mlx4dv_priv_grant_req *req,
			   struct mlx4dv_priv_grant *out)
{
	struct queue_grant *g;
	bool fresh = false;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!req->wrid_cnt && !req->bf)
		return 0;	/* nothing to hold */
	pthread_mutex_lock(&grant_lock);
	g = grant_find(req->queue);
	/* A ring address now used by a queue of another context: the old
	 * queue was destroyed without a release. */
	if (g && g->context != req->context) {
		grant_free(g);
		g = NULL;
	}
	if (!g) {
		g = grant_new(req->queue, req->context);
		fresh = true;
	}
	if (!g) {
		ret = ENOMEM;
		goto out;
	}
	if (req->wrid_cnt) {
		ret = grant_wrid(g, req->wrid_cnt);
		if (ret) {
			if (fresh)
				grant_free(g);
			goto out;
		}
		out->wrid = g->wrid;
	}
	if (req->bf) {
		if (!g->bf_reg)
			out->bf_err = mlx4dv_priv_bf_reg_acquire(req->context,
				&g->bf_reg, &g->bf_reg_size);
		if (g->bf_reg) {
			out->bf_reg = g->bf_reg;
			out->bf_reg_size = g->bf_reg_size;
		}
	}
	out->ticket = g->ticket;
	if (!g->wrid && !g->bf_reg) {
		/* Nothing came of it (no register free): hold nothing. */
		grant_free(g);
		out->ticket = 0;
	}
out:
	pthread_mutex_unlock(&grant_lock);
	return ret;
}

void mlx4dv_priv_grant_give_back(const void *queue, uint32_t ticket,
				 const uint64_t *wrid)
{
	struct queue_grant *g;

	pthread_mutex_lock(&grant_lock);
	g = grant_find(queue);
	if (g && (ticket ? g->ticket == ticket : (wrid && g->wrid == wrid)))
		grant_free(g);
	pthread_mutex_unlock(&grant_lock);
}

int mlx4dv_priv_wrid_take(const void *queue, struct ibv_context *context,
			  uint32_t count, uint64_t **wrid)
{
	struct mlx4dv_priv_grant_req req = { queue, context, count, false };
	struct mlx4dv_priv_grant grant;
	int ret = mlx4dv_priv_grant_take(&req, &grant);

	if (!ret)
		*wrid = grant.wrid;
	return ret;
}
