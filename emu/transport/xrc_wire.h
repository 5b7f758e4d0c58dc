/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * XRC between adapters (IBTA Vol. 1 9.2 and the XRC annex, as rxe and
 * Wireshark take it): an XRC connection is an RC connection between an
 * initiator and a target QP whose packets carry the XRC transport bits
 * (opcode 0xa0 | operation); every request has the 4-byte XRCETH right
 * after the BTH (8 reserved bits, the 24-bit XRC SRQ number), responses
 * (ACK, READ responses, atomic ACK) have none.  The RC requester,
 * responder and completer do the rest; these are their XRC pieces.
 */
#ifndef MLX4EMU_TRANSPORT_XRC_WIRE_H
#define MLX4EMU_TRANSPORT_XRC_WIRE_H

#include <stddef.h>

#include "adapter/adapter.h"
#include "wire/roce.h"

/*
 * The XRC part of a packet QP qp sends: the transport bits of *opcode
 * become XRC, and an initiator's request gets XRCETH naming srqn, written
 * at after_bth (4 bytes).  Returns the bytes written there (0 for a
 * packet of another QP type, or a response).
 */
size_t emu_xrc_wire_out(const struct emu_qp *qp, uint32_t srqn, uint8_t *opcode,
			uint8_t *after_bth);

/* The QP type a packet with this opcode is for: UC, RC, and for XRC the
 * target (requests) or the initiator (responses). */
uint8_t emu_wire_qp_type(uint8_t opcode);

/* A request arrived at XRC target QP tgt: binds the SRQ its XRCETH names
 * (emu_xrc_bind); false when that is no XRC SRQ of tgt's domain. */
bool emu_xrc_wire_bind(struct emu_qp *tgt, const uint8_t *pkt,
		       const struct emu_ext_layout *l);

#endif
