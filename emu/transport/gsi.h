/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The General Services Interface of a port: QP1, which carries the
 * management datagrams of the general service classes (here the
 * Communication Manager's, class 0x07) between adapters as UD SEND_ONLY
 * packets to DestQP 1 with DETH Q_Key 0x80010000 and source QP 1 (IBTA
 * Vol. 1 13.4.6).  A MAD is 256 bytes.  QP1 is the adapter's own: no
 * program QP ever has number 1, and these packets never reach one.
 *
 * The layer that owns the MADs (cm/) registers its receive handler here;
 * the transport calls it, with the adapter lock held, for every packet to
 * QP1 that arrives on a port.
 */
#ifndef MLX4EMU_TRANSPORT_GSI_H
#define MLX4EMU_TRANSPORT_GSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/link.h"

#define EMU_GSI_QPN 1u
#define EMU_GSI_QKEY 0x80010000u
#define EMU_MAD_BYTES 256u

/* A MAD that arrived on `port` from the port at address src (host
 * order); mad holds len bytes (EMU_MAD_BYTES for a well-formed one). */
typedef void (*emu_gsi_handler)(unsigned port, uint32_t src, const uint8_t *mad, size_t len);

/* Registers the handler (once, at load). */
void emu_gsi_register(emu_gsi_handler h);

/*
 * Queues one MAD from `port` to QP1 of the port at dst (IPv4, host order)
 * and sends it with the port's other queued packets.  the adapter lock held
 * (any thread).  0 or an errno of emu_link_queue().
 */
int emu_gsi_send(unsigned port, uint32_t dst, const uint8_t mad[EMU_MAD_BYTES]);

/* A UD packet to DestQP 1 (BTH already checked by the transport): true
 * when it was one (taken or dropped here). */
bool emu_gsi_receive(const struct emu_rx *rx, uint32_t dest_qpn);

#endif
