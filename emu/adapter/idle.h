/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * How the engine waits when a pass found no work, with trapped doorbells:
 * stay runnable (spin, then yield) or block in ppoll() at once.
 *
 * Staying runnable saves a wake-up when the program posts again within
 * microseconds (one process driving its own device in a loop).  It costs
 * a CPU the whole time, and a yielding thread is still runnable: next to
 * threads that busy-poll a CQ (ibv_rc_pingpong without -e, perftest's
 * latency programs) it waits out their scheduler slices (milliseconds)
 * before it runs again, where a thread woken from ppoll() by its socket
 * or eventfd runs at once.  So the engine stays runnable only while the
 * work of recent idle spells came back within the spin window: an idle
 * spell is the time from the first pass without work to the next pass
 * with work (or to the doorbell that woke the engine from ppoll(), so
 * that sleeping does not lengthen the spells it measures).
 */
#ifndef MLX4EMU_IDLE_H
#define MLX4EMU_IDLE_H

#include <stdbool.h>
#include <stdint.h>

/* The spin window: an idle spell this short is quick. */
#define EMU_IDLE_SPIN_NS 50000ull
/* Of the last EMU_IDLE_SPELLS idle spells, EMU_IDLE_QUICK_MIN quick ones
 * keep the engine runnable through the next. */
#define EMU_IDLE_SPELLS 4u
#define EMU_IDLE_QUICK_MIN 3u

struct emu_idle_history {
	/* bit i: the i-th latest idle spell was quick; a zero-initialised
	 * history reads as all slow (emu_idle_history_init starts quick) */
	uint8_t quick;
};

/* A history of quick spells: a new engine spins, as it did before it had
 * any history. */
void emu_idle_history_init(struct emu_idle_history *h);
/* Records an idle spell of spell_ns nanoseconds. */
void emu_idle_record(struct emu_idle_history *h, uint64_t spell_ns);
/* Whether the engine stays runnable (spins, then yields) through the next
 * idle spell rather than blocking in ppoll() at once. */
bool emu_idle_stay_runnable(const struct emu_idle_history *h);

#endif
