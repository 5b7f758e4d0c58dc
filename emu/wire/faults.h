/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Faults on the wire (MLX4EMU_WIRE_DROP, _DUP, _REORDER, _DELAY, _SEED):
 * the fate of every frame a port sends to another adapter, drawn from a
 * seeded generator per port (splitmix64 of MLX4EMU_WIRE_SEED and the port
 * number), so the Nth frame a port sends meets the same fate in every run
 * with the same seed, whatever the addresses.  Draws per frame, in this
 * order, each only when its fault is configured: drop (the frame is not
 * sent; nothing else is drawn), duplicate (it is sent twice, back to
 * back), delay (held for the delay), reorder (when not delayed: held
 * until the port has sent its next frame to the same peer, or at most
 * the reorder window).
 *
 * Held frames are kept here, sealed (ICRC included), until
 * emu_faults_release_due() or emu_faults_release_after() hands them back.
 * At most EMU_FAULTS_DELAY_MAX frames wait out a delay: when more come,
 * the oldest is released early (no frame is lost to the limit); at most
 * EMU_FAULTS_REORDER_MAX wait for a successor: beyond, a frame drawn for
 * reordering is sent in order (and not counted).  Engine thread only,
 * like wire/link.h; the counters may be read from any thread.
 */
#ifndef MLX4EMU_WIRE_FAULTS_H
#define MLX4EMU_WIRE_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EMU_FAULTS_DELAY_MAX 1024
#define EMU_FAULTS_REORDER_MAX 64

enum emu_fault_hold {
	EMU_HOLD_NONE,
	EMU_HOLD_DELAY,		/* until now + the configured delay */
	EMU_HOLD_REORDER,	/* until the next frame to the peer, or the window */
};

struct emu_fate {
	bool drop;
	unsigned copies;	/* 1, or 2 for a duplicate */
	enum emu_fault_hold hold;
};

/* Counts since load; frames = frames offered to the link. */
struct emu_fault_counts {
	uint64_t frames, dropped, duplicated, reordered, delayed;
};

/* Seeds the generators and sets the holding area up (constructor, after
 * the configuration).  0, or ENOMEM (the faults that hold frames are then
 * turned off, with a message). */
int emu_faults_init(void);
/* Any fault configured? (the link's fast path skips this module when not) */
extern bool emu_faults_on;

/* The fate of the next frame `port` sends; counts it. */
struct emu_fate emu_faults_decide(unsigned port);

/* The fate of the next link packet (a datagram credit, wire/roce.h)
 * `port` sends, drawn from a generator of its own and counted apart:
 * dropped or duplicated as data frames are, never held (a credit
 * overtaken or late is still right: its counts are cumulative). */
struct emu_fate emu_faults_decide_link(unsigned port);

/* Hands a frame back to the link: `copies` times the `len` bytes at pkt. */
typedef void emu_fault_release_fn(unsigned port, uint32_t dst, const uint8_t *pkt,
				  size_t len, unsigned copies);

/*
 * Keeps a copy of a frame the fate says to hold (now_ns: CLOCK_MONOTONIC);
 * a frame that cannot be held (see the limits above) goes to `release`
 * (the delay area's oldest frame, or this one when reorder has no room).
 */
void emu_faults_hold(const struct emu_fate *f, unsigned port, uint32_t dst,
		     const uint8_t *pkt, size_t len, uint64_t now_ns,
		     emu_fault_release_fn *release);

/* Releases the frames held for reordering to (port, dst): called after a
 * frame to that peer was sent.  Returns how many. */
unsigned emu_faults_release_after(unsigned port, uint32_t dst,
				  emu_fault_release_fn *release);

/* Releases every held frame whose time has come, oldest first; returns
 * how many. */
unsigned emu_faults_release_due(uint64_t now_ns, emu_fault_release_fn *release);

/* When the next held frame is due (CLOCK_MONOTONIC ns), UINT64_MAX: none. */
uint64_t emu_faults_next_due(void);

/* One line on stderr with the counts, when faults were configured (at
 * exit, so a test can see that they happened). */
void emu_faults_report(void);

#endif
