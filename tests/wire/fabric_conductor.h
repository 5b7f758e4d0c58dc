/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The hub's conductor of peer restarts in a fabric test (tests/wire/
 * fabric.c, all-to-all): while the traffic flows it kills, at random
 * points of the hub's own progress, a randomly chosen host other than
 * the hub (SIGKILL of its process; tests/wire/fabric.sh starts it
 * again), and leads the host started again back in:
 *
 *   kill:  FAB_KILLED to every survivor, SIGKILL, the host's connection
 *          dropped; the survivors post no more on their QPs to it
 *   join:  the new process connects and sends FAB_JOIN (its new QPs);
 *          passed on to the survivors, which move their QPs to it to
 *          ERR, take every completion due, make new QPs and answer
 *          FAB_REPLACED
 *   table: every survivor answered: FAB_TABLE to the joining host,
 *          which connects its QPs and sends FAB_READY, passed on: the
 *          survivors post on their new QPs
 *
 * The joining host's QPs leave INIT only with FAB_TABLE, after every
 * survivor's old QPs to it are drained and destroyed: no packet of an
 * old connection (the wire holds a reordered one 1 ms at most) finds a
 * new QP that would take it, whatever QPNs and PSNs the new ones reuse.
 *
 * One restart at a time.  The traffic ends (FAB_FINISH to all) once
 * every restart planned was done and every host said FAB_DONE since the
 * latest kill, or at once when a host said FAB_FAILED.  Every phase of a
 * restart is bounded (FAB_RESTART_MS).
 */
#ifndef MLX4DV_TEST_WIRE_FABRIC_CONDUCTOR_H
#define MLX4DV_TEST_WIRE_FABRIC_CONDUCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric_rendezvous.h"

/* Longest phase of a restart (ms): a process started again on a loaded
 * machine, 60 QPs drained and made anew on each survivor. */
#define FAB_RESTART_MS 60000
/* Restarts in one run at most. */
#define FAB_MAX_RESTARTS 1000

enum fab_phase { FAB_IDLE, FAB_DEAD, FAB_REPLACING, FAB_CONNECTING };

struct fab_conductor {
	struct fab_star *star;
	unsigned planned, done;		/* restarts */
	uint64_t nominal;		/* the hub's operations without restarts */
	uint64_t due;			/* the hub's progress the next kill waits for */
	uint64_t rng;
	enum fab_phase phase;
	uint64_t phase_ns;		/* when the phase began */
	unsigned victim, replies;
	bool done_said[FAB_MAX_HOSTS];	/* FAB_DONE since the latest kill */
	bool finished, failed;
	size_t row;			/* bytes of one host's QP records */
	uint8_t *table;			/* hosts x row: the survivors' answers */
	uint8_t *msg;			/* a message's payload (row bytes) */
	unsigned victims[FAB_MAX_RESTARTS];
};

/* `restarts` kills, their points drawn from `seed` over the first 80 %
 * of `nominal` (the hub's completions without restarts). */
int fab_conductor_init(struct fab_conductor *c, struct fab_star *s, unsigned restarts,
		       uint64_t seed, uint64_t nominal, size_t row);
void fab_conductor_free(struct fab_conductor *c);
/*
 * One step, at the hub, never waiting: the hosts' messages, a kill when
 * `progress` (the hub's completed operations) reaches the next point,
 * the end.  Returns 0, or -1 on a failure (printed).
 */
int fab_conductor_step(struct fab_conductor *c, uint64_t progress);

#endif
