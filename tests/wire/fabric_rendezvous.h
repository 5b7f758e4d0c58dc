/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The out-of-band star of a fabric test (tests/wire/fabric.c): host 0,
 * the hub, listens on a TCP port and takes one connection from each of
 * the other hosts; over those connections every host's records reach
 * every other (fab_allgather) and every host waits for all the others
 * (fab_barrier).  Every wait is bounded (FAB_WAIT_MS per step); a failure
 * prints what failed, prefixed with "fabric", and returns -1.
 *
 * While the traffic flows, a fabric whose peers may be killed and started
 * again speaks in messages (struct fab_msg): each host, the hub's own
 * included, to the hub's conductor (tests/wire/fabric_conductor.h) and
 * back.  The hub keeps listening then, for a host started again to
 * connect anew; its own host side reaches the conductor through a socket
 * pair (fd[0] the conductor's end, up the host's), so that the hub takes
 * part in a restart as every other survivor does.
 */
#ifndef MLX4DV_TEST_WIRE_FABRIC_RENDEZVOUS_H
#define MLX4DV_TEST_WIRE_FABRIC_RENDEZVOUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Hosts of one fabric at most (the hub included). */
#define FAB_MAX_HOSTS 16
/* Longest wait for the hub to listen, for a host to connect, or for a
 * peer's bytes (ms): generous, a loaded machine starts 16 adapters
 * slowly. */
#define FAB_WAIT_MS 60000

struct fab_star {
	unsigned host;			/* this host, 0 the hub */
	unsigned hosts;			/* 2..FAB_MAX_HOSTS */
	int fd[FAB_MAX_HOSTS];		/* hub: one per host (fd[0] the
					 * conductor's end of the socket pair,
					 * or -1); others: fd[0] to the hub */
	unsigned wait_ms;		/* longest wait for a host's bytes in
					 * fab_allgather and fab_barrier (ms);
					 * FAB_WAIT_MS unless set after open */
	int up;				/* a host's way to the conductor */
	int lfd;			/* hub, with restarts: still listening */
	pid_t pid[FAB_MAX_HOSTS];	/* hub: each host's process */
};

/* fab_star_open's flags */
#define FAB_STAR_RESTARTS 1u	/* peers may be killed and started again */
#define FAB_STAR_REJOIN 2u	/* this host is one started again */

/*
 * The hub (host 0) listens on hub_addr:port (IPv4 dotted quad) and
 * accepts hosts - 1 connections, each announcing its host number and
 * process; the others connect, retrying while nobody listens.  With
 * FAB_STAR_REJOIN the host connects to a hub whose traffic already
 * flows (its conductor accepts it).  Returns 0 or -1.
 */
int fab_star_open(struct fab_star *s, unsigned host, unsigned hosts, const char *hub_addr,
		  uint16_t port, unsigned flags);
void fab_star_close(struct fab_star *s);

/*
 * Every host contributes `len` bytes (mine); on return all[h * len ...]
 * holds host h's bytes on every host (its own included).
 */
int fab_allgather(struct fab_star *s, const void *mine, size_t len, void *all);

/* Returns once every host has called it with the same name. */
int fab_barrier(struct fab_star *s, const char *name);

/* ---- messages while the traffic flows (FAB_STAR_RESTARTS) ---- */

enum fab_msg_type {
	FAB_KILLED = 1,	/* conductor: `host` was killed; arg: the restarts so far */
	FAB_JOIN,	/* `host`, started again: its QP records (a row of the
			 * table); the conductor passes it on to the others */
	FAB_REPLACED,	/* a survivor: its row, with new QPs to the joining host */
	FAB_TABLE,	/* conductor to the joining host: every host's row;
			 * arg: the restarts so far */
	FAB_READY,	/* the joining host's QPs are connected; passed on */
	FAB_DONE,	/* a host's QPs are all done; arg: the restarts it knew */
	FAB_FAILED,	/* a host's check failed: the conductor ends the traffic */
	FAB_FINISH,	/* conductor: the traffic is over; arg 1: ended by a failure */
};

struct fab_msg {
	uint32_t type, host, arg, len;	/* len: payload bytes that follow */
};

/* A host to the conductor. */
int fab_tell_hub(struct fab_star *s, uint32_t type, uint32_t arg, const void *payload,
		 uint32_t len);
/* The conductor to host h. */
int fab_tell_host(struct fab_star *s, unsigned h, const struct fab_msg *m, const void *payload);
/*
 * A host: the conductor's next message, waiting up to wait_ms for its
 * first byte; its payload (at most cap bytes) into payload.  Returns 1,
 * 0 when none came, -1 on failure.
 */
int fab_hear_hub(struct fab_star *s, struct fab_msg *m, void *payload, size_t cap,
		 unsigned wait_ms);
/*
 * The conductor: a message waiting from any host, without waiting; a
 * host started again that connects meanwhile takes its place in the
 * star.  Returns 1 (*from the sender), 0 when none is waiting, -1 on
 * failure (a host that left unless dropped, a message too long).
 */
int fab_hear_hosts(struct fab_star *s, unsigned *from, struct fab_msg *m, void *payload,
		   size_t cap);
/* The conductor forgets host h's connection (it has killed h). */
void fab_star_drop(struct fab_star *s, unsigned h);

#endif
