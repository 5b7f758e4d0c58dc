/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The RC requester's window: how many PSNs may be sent and not yet
 * acknowledged.  The wire between adapters is a loopback UDP socket on a
 * host that runs both engines in turns, so the window is what keeps the
 * sender busy while its peer's engine waits for a CPU: the larger it is,
 * the more each engine does per turn.  Every loss costs a go-back-N
 * resend of all that is in flight, though, so the window adapts: it
 * starts at EMU_RC_WINDOW_START, grows by EMU_RC_WINDOW_STEP for each
 * window's worth of PSNs acknowledged without a loss, up to
 * EMU_RC_WINDOW, and halves (not below EMU_RC_WINDOW_MIN) at every loss
 * the requester recovers from (a PSN sequence NAK, a local ACK timeout,
 * a gap in READ responses).  An RNR NAK is no loss: the window stays.
 * A ConnectX-3 publishes no window of its own; these are the device's.
 * Engine thread or command context, the adapter lock held.
 */
#ifndef MLX4EMU_TRANSPORT_RC_WINDOW_H
#define MLX4EMU_TRANSPORT_RC_WINDOW_H

#include <stdint.h>

/* request PSNs in flight at most (unacknowledged packets) */
#define EMU_RC_WINDOW 1024
#define EMU_RC_WINDOW_START 256
#define EMU_RC_WINDOW_MIN 64
#define EMU_RC_WINDOW_STEP 64

struct rc_window {
	uint32_t size;		/* PSNs that may be outstanding */
	uint32_t acked;		/* PSNs acknowledged since it last grew */
};

static inline void rc_window_init(struct rc_window *w)
{
	w->size = EMU_RC_WINDOW_START;
	w->acked = 0;
}

/* n more PSNs were acknowledged. */
static inline void rc_window_acked(struct rc_window *w, uint32_t n)
{
	if (w->size >= EMU_RC_WINDOW)
		return;
	w->acked += n;
	while (w->acked >= w->size && w->size < EMU_RC_WINDOW) {
		w->acked -= w->size;
		w->size += EMU_RC_WINDOW_STEP;
	}
}

/* A loss: the requester resends from a PSN. */
static inline void rc_window_loss(struct rc_window *w)
{
	w->size = w->size / 2 > EMU_RC_WINDOW_MIN ? w->size / 2 : EMU_RC_WINDOW_MIN;
	w->acked = 0;
}

#endif
