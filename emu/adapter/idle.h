/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * How the engine waits when a pass found no work, with trapped doorbells:
 * stay runnable (spin for EMU_IDLE_SPIN_NS, then yield until
 * EMU_IDLE_YIELD_NS) or block in ppoll() at once.
 *
 * An idle spell runs from the first pass without work to the next pass
 * with work, or to the kick (doorbell, command) that woke the engine from
 * ppoll(), so that sleeping does not lengthen the spells it measures.
 *
 * While the engine waits for its own program, staying runnable costs no
 * wake-up per doorbell, and a yield hands the CPU to the program's
 * thread: that is kept whenever the program comes back within the yield
 * window.  While it waits for another adapter (the work that ended the
 * spell was frames alone), it waits for threads of another process: for
 * that process's engine, woken by the frame it received, and for the
 * program threads on both sides, which often busy-poll their CQs
 * (ibv_rc_pingpong without -e, perftest's latency programs).  A runnable
 * engine then holds a CPU they need, and a yielding thread, still
 * runnable, waits out their scheduler slices (milliseconds) before it
 * runs again, where a thread woken from ppoll() by its socket runs at
 * once.  So a spell is slow when the wire ended it after the spin window,
 * or anything after the yield window, and the engine stays runnable only
 * while at least EMU_IDLE_QUICK_MIN of the last EMU_IDLE_SPELLS spells
 * were quick.
 */
#ifndef MLX4EMU_IDLE_H
#define MLX4EMU_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#define EMU_IDLE_SPIN_NS 50000ull
#define EMU_IDLE_YIELD_NS 5000000ull
#define EMU_IDLE_SPELLS 4u
#define EMU_IDLE_QUICK_MIN 3u

struct emu_idle_history {
	/* bit i: the i-th latest idle spell was quick */
	uint8_t quick;
};

/* A history of quick spells: a new engine stays runnable, as it did
 * before it had any history. */
void emu_idle_history_init(struct emu_idle_history *h);
/* Records an idle spell of spell_ns nanoseconds; by_wire: frames from
 * other adapters were the only work that ended it. */
void emu_idle_record(struct emu_idle_history *h, uint64_t spell_ns, bool by_wire);
/* Whether the engine stays runnable (spins, then yields) through the next
 * idle spell rather than blocking in ppoll() at once. */
bool emu_idle_stay_runnable(const struct emu_idle_history *h);

#endif
