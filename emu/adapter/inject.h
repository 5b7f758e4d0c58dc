/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Faults injected into the adapter's objects (inject.c): an error CQE,
 * a QP moved to the error state, a CQ overrun, armed on a live object or,
 * for an unknown one (0: the next created), on the object created next.
 * Armed from the configuration at the first context and by the control
 * API; called with emu_dev.lock held.
 */
#ifndef MLX4EMU_INJECT_H
#define MLX4EMU_INJECT_H

#include "adapter/adapter.h"

/* The faults the configuration arms (MLX4EMU_FAULT_*). */
void emu_inject_init(void);
/* The count-th WQE of QP qpn from now completes with an error CQE of
 * this syndrome. */
void emu_inject_error_cqe(uint32_t qpn, uint64_t count, uint8_t syndrome);
/* QP qpn moves to the error state after count WQEs from now. */
void emu_inject_qp_error(uint32_t qpn, uint64_t count);
/* CQ cqn overruns after count CQEs from now; EINVAL for a CQ number
 * beyond the table. */
int emu_inject_cq_overrun(uint32_t cqn, uint64_t count);
/* Disarms every fault, armed or pending. */
void emu_inject_clear(void);
/* The faults armed for the next QP (or this QPN) become the new QP's. */
void emu_inject_attach_qp(struct emu_qp *qp);

#endif
