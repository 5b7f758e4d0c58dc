// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Faults injected into the adapter's objects (inject.h). */
#include <errno.h>

#include "adapter/inject.h"
#include "adapter/objects.h"

void emu_inject_init(void)
{
	emu_dev.fault_cqe.qpn = emu_cfg.fault_cqe_qpn;
	emu_dev.fault_cqe.count = emu_cfg.fault_cqe_n;
	emu_dev.fault_cqe.syndrome = emu_cfg.fault_cqe_syndrome;
	emu_dev.fault_err.qpn = emu_cfg.fault_err_qpn;
	emu_dev.fault_err.count = emu_cfg.fault_err_n;
	emu_dev.fault_overrun = emu_cfg.fault_overrun_n;
	emu_dev.fault_overrun_cqn = emu_cfg.fault_overrun_cqn;
}

void emu_inject_error_cqe(uint32_t qpn, uint64_t count, uint8_t syndrome)
{
	struct emu_qp *qp = qpn ? emu_qp_by_qpn(qpn) : NULL;

	if (qp) {
		qp->debug.fault_cqe_at = qp->debug.wqes_done + count;
		qp->debug.fault_syndrome = syndrome;
		return;
	}
	emu_dev.fault_cqe.qpn = qpn;
	emu_dev.fault_cqe.count = count;
	emu_dev.fault_cqe.syndrome = syndrome;
}

void emu_inject_qp_error(uint32_t qpn, uint64_t count)
{
	struct emu_qp *qp = qpn ? emu_qp_by_qpn(qpn) : NULL;

	if (qp) {
		qp->debug.fault_err_after = qp->debug.wqes_done + count;
		return;
	}
	emu_dev.fault_err.qpn = qpn;
	emu_dev.fault_err.count = count;
}

int emu_inject_cq_overrun(uint32_t cqn, uint64_t count)
{
	if (cqn && cqn < EMU_MAX_CQ && emu_dev.cq[cqn].used) {
		struct emu_cq *cq = &emu_dev.cq[cqn];

		cq->overrun_after = cq->cqes_total + count;
		return 0;
	}
	if (cqn >= EMU_MAX_CQ)
		return EINVAL;
	emu_dev.fault_overrun = count;
	emu_dev.fault_overrun_cqn = cqn;
	return 0;
}

void emu_inject_clear(void)
{
	emu_dev.fault_cqe.count = 0;
	emu_dev.fault_err.count = 0;
	emu_dev.fault_overrun = 0;
	for (uint32_t i = 0; emu_dev.qp_tab && i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i]) {
			emu_dev.qp_tab[i]->debug.fault_cqe_at = 0;
			emu_dev.qp_tab[i]->debug.fault_err_after = 0;
		}
	for (uint32_t i = 0; i < emu_dev.cq_end; i++)
		emu_dev.cq[i].overrun_after = 0;
}

void emu_inject_attach_qp(struct emu_qp *qp)
{
	if (emu_dev.fault_cqe.count &&
	    (!emu_dev.fault_cqe.qpn || emu_dev.fault_cqe.qpn == qp->qpn)) {
		qp->debug.fault_cqe_at = emu_dev.fault_cqe.count;
		qp->debug.fault_syndrome = emu_dev.fault_cqe.syndrome;
		emu_dev.fault_cqe.count = 0;
	}
	if (emu_dev.fault_err.count &&
	    (!emu_dev.fault_err.qpn || emu_dev.fault_err.qpn == qp->qpn)) {
		qp->debug.fault_err_after = emu_dev.fault_err.count;
		emu_dev.fault_err.count = 0;
	}
}
