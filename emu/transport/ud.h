/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* UD over the wire: one SEND_ONLY[_WITH_IMMEDIATE] packet per message. */
#ifndef MLX4EMU_TRANSPORT_UD_H
#define MLX4EMU_TRANSPORT_UD_H

#include "adapter/remote.h"
#include "wire/link.h"
#include "wire/roce.h"

void emu_ud_send_remote(struct emu_qp *qp, uint32_t addr, uint32_t dqpn,
			const struct emu_ud_msg *m);
/* A UD packet that arrived (BTH decoded); dropped unless a UD QP of the
 * port takes it. */
void emu_ud_receive(const struct emu_rx *rx, const struct emu_bth *bth);

#endif
