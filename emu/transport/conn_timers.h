/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The connections with a timer running: the requester's local ACK timer
 * (retry_due_ns) or an RNR wait (rnr_due_ns).  Engine thread or command
 * path, the adapter lock held. */
#ifndef MLX4EMU_TRANSPORT_CONN_TIMERS_H
#define MLX4EMU_TRANSPORT_CONN_TIMERS_H

#include <stdint.h>

struct emu_conn;

/* Puts the conn on the list when one of its timers runs (waking the
 * engine to see the new deadline), off it when none does. */
void conn_timer_watch(struct emu_conn *c);
/* Takes the conn off the list (its end). */
void conn_timer_forget(struct emu_conn *c);
/* The earliest deadline on the list (CLOCK_MONOTONIC ns; UINT64_MAX:
 * none). */
uint64_t conn_timers_deadline(void);
/* Hands every conn whose timer is due at now_ns to the completer;
 * returns how many. */
int conn_timers_run(uint64_t now_ns);

#endif
