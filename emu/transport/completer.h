/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The completer (completer.c): ACKs and responses to send CQEs.  Engine
 * thread, the adapter lock held. */
#ifndef MLX4EMU_TRANSPORT_COMPLETER_H
#define MLX4EMU_TRANSPORT_COMPLETER_H

#include <stdint.h>

#include "wire/link.h"
#include "wire/roce.h"

struct emu_conn;
struct emu_qp;

/* An ACK, NAK, READ response or ATOMIC ACKNOWLEDGE for the conn. */
void comp_receive(struct emu_conn *c, const struct emu_rx *rx,
		  const struct emu_bth *bth, const struct emu_ext_layout *l);
/* The local ACK timer or an RNR wait of the conn ended. */
void comp_timer(struct emu_conn *c, uint64_t now_ns);
/* The remote ops' sq_flush (adapter/remote.h). */
int comp_sq_flush(struct emu_qp *qp);
/* A guarded access of the completer faulted: the head WQE fails. */
void comp_fault(struct emu_conn *c);

#endif
