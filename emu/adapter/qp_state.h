/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4EMU_QP_STATE_H
#define MLX4EMU_QP_STATE_H

#include <stdint.h>

/*
 * The QP state machine's attribute rules (IB spec 11.2.4.2, as the
 * kernel's ib_modify_qp_is_ok applies them): for the transition cur->next
 * of a QP type, every required attribute must be in mask and nothing but
 * the required, optional and state bits.  Returns 0 or EINVAL.
 */
int emu_qp_transition_ok(uint8_t qp_type, int cur, int next, uint32_t mask);

#endif
