/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The out-of-band star of a fabric test (tests/wire/fabric.c): host 0,
 * the hub, listens on a TCP port and takes one connection from each of
 * the other hosts; over those connections every host's records reach
 * every other (fab_allgather) and every host waits for all the others
 * (fab_barrier).  Every wait is bounded (FAB_WAIT_MS per step); a failure
 * prints what failed, prefixed with "fabric", and returns -1.
 */
#ifndef MLX4DV_TEST_WIRE_FABRIC_RENDEZVOUS_H
#define MLX4DV_TEST_WIRE_FABRIC_RENDEZVOUS_H

#include <stddef.h>
#include <stdint.h>

/* Hosts of one fabric at most (the hub included). */
#define FAB_MAX_HOSTS 16
/* Longest wait for the hub to listen, for a host to connect, or for a
 * peer's bytes (ms): generous, a loaded machine starts 16 adapters
 * slowly. */
#define FAB_WAIT_MS 60000

struct fab_star {
	unsigned host;			/* this host, 0 the hub */
	unsigned hosts;			/* 2..FAB_MAX_HOSTS */
	int fd[FAB_MAX_HOSTS];		/* hub: one per host (fd[0] unused);
					 * others: fd[0] to the hub */
	unsigned wait_ms;		/* longest wait for a host's bytes in
					 * fab_allgather and fab_barrier (ms);
					 * FAB_WAIT_MS unless set after open */
};

/*
 * The hub (host 0) listens on hub_addr:port (IPv4 dotted quad) and
 * accepts hosts - 1 connections, each announcing its host number; the
 * others connect, retrying while nobody listens.  Returns 0 or -1.
 */
int fab_star_open(struct fab_star *s, unsigned host, unsigned hosts, const char *hub_addr,
		  uint16_t port);
void fab_star_close(struct fab_star *s);

/*
 * Every host contributes `len` bytes (mine); on return all[h * len ...]
 * holds host h's bytes on every host (its own included).
 */
int fab_allgather(struct fab_star *s, const void *mine, size_t len, void *all);

/* Returns once every host has called it with the same name. */
int fab_barrier(struct fab_star *s, const char *name);

#endif
