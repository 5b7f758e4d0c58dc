// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The exported control API (mlx4emu_ctl.h). */
#include <errno.h>

#include "adapter/adapter.h"
#include "adapter/port.h"
#include "wire/link.h"
#include "wire/vxlan.h"
#include "adapter/engine.h"
#include "mlx4emu_ctl.h"
#include "adapter/objects.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int mlx4emu_pause(void)
{
	/* taking the lock waits for the pass in progress */
	pthread_mutex_lock(&emu_dev.lock);
	atomic_store(&emu_dev.paused, true);
	pthread_mutex_unlock(&emu_dev.lock);
	return 0;
}

EXPORT int mlx4emu_resume(void)
{
	atomic_store(&emu_dev.paused, false);
	emu_engine_kick();
	return 0;
}

EXPORT int mlx4emu_wait_idle(unsigned timeout_ms)
{
	return emu_engine_wait_idle(timeout_ms);
}

static int set_fault_locked(const struct mlx4emu_fault *f)
{
	struct emu_qp *qp = f->qpn ? emu_qp_by_qpn(f->qpn) : NULL;

	if (!f->count)
		return EINVAL;
	switch (f->type) {
	case MLX4EMU_FAULT_ERROR_CQE:
		if (f->syndrome > 0xff || !f->syndrome)
			return EINVAL;
		if (qp) {
			qp->fault_cqe_at = qp->wqes_done + f->count;
			qp->fault_syndrome = (uint8_t)f->syndrome;
			return 0;
		}
		emu_dev.fault_cqe.qpn = f->qpn;
		emu_dev.fault_cqe.count = f->count;
		emu_dev.fault_cqe.syndrome = (uint8_t)f->syndrome;
		return 0;
	case MLX4EMU_FAULT_QP_ERROR:
		if (qp) {
			qp->fault_err_after = qp->wqes_done + f->count;
			return 0;
		}
		emu_dev.fault_err.qpn = f->qpn;
		emu_dev.fault_err.count = f->count;
		return 0;
	case MLX4EMU_FAULT_CQ_OVERRUN:
		if (f->cqn && f->cqn < EMU_MAX_CQ && emu_dev.cq[f->cqn].used) {
			struct emu_cq *cq = &emu_dev.cq[f->cqn];

			cq->overrun_after = cq->cqes_total + f->count;
			return 0;
		}
		if (f->cqn >= EMU_MAX_CQ)
			return EINVAL;
		emu_dev.fault_overrun = f->count;
		emu_dev.fault_overrun_cqn = f->cqn;
		return 0;
	default:
		return EINVAL;
	}
}

EXPORT int mlx4emu_set_fault(const struct mlx4emu_fault *fault)
{
	int err;

	if (!fault)
		return EINVAL;
	pthread_mutex_lock(&emu_dev.lock);
	err = set_fault_locked(fault);
	pthread_mutex_unlock(&emu_dev.lock);
	return err;
}

EXPORT int mlx4emu_clear_faults(void)
{
	pthread_mutex_lock(&emu_dev.lock);
	emu_dev.fault_cqe.count = 0;
	emu_dev.fault_err.count = 0;
	emu_dev.fault_overrun = 0;
	for (uint32_t i = 0; emu_dev.qp_tab && i < emu_dev.qp_end; i++)
		if (emu_dev.qp_tab[i]) {
			emu_dev.qp_tab[i]->fault_cqe_at = 0;
			emu_dev.qp_tab[i]->fault_err_after = 0;
		}
	for (uint32_t i = 0; i < emu_dev.cq_end; i++)
		emu_dev.cq[i].overrun_after = 0;
	pthread_mutex_unlock(&emu_dev.lock);
	return 0;
}

EXPORT int mlx4emu_get_counters(struct mlx4emu_counters *out)
{
	if (!out)
		return EINVAL;
	out->wqes_executed = atomic_load(&emu_dev.ctr.wqes);
	out->cqes_written = atomic_load(&emu_dev.ctr.cqes);
	out->error_cqes = atomic_load(&emu_dev.ctr.error_cqes);
	out->comp_events = atomic_load(&emu_dev.ctr.comp_events);
	out->async_events = atomic_load(&emu_dev.ctr.async_events);
	out->strict_errors = atomic_load(&emu_dev.ctr.strict_errors);
	out->bf_posts = atomic_load(&emu_dev.ctr.bf_wqes);
	out->rnr_naks = atomic_load(&emu_dev.ctr.rnr_naks);
	out->packets = atomic_load(&emu_dev.ctr.packets);
	out->engine_passes = atomic_load(&emu_dev.ctr.passes);
	out->engine_idle_runnable = atomic_load(&emu_dev.ctr.idle_runnable);
	out->engine_idle_asleep = atomic_load(&emu_dev.ctr.idle_asleep);
	out->mtu_drops = emu_port_oversize_drops(1) + emu_port_oversize_drops(2);
	out->link_down_drops = emu_port_link_down_drops(1) + emu_port_link_down_drops(2);
	out->no_wqe_drops = emu_port_no_wqe_drops(1) + emu_port_no_wqe_drops(2);
	out->ud_no_wqe_drops = emu_port_ud_no_wqe_drops(1) + emu_port_ud_no_wqe_drops(2);
	out->wire_frames_sent = out->wire_frames_received = out->wire_frames_lost = 0;
	for (unsigned p = 1; p <= 2; p++) {
		struct emu_vxlan_counters v;

		emu_vxlan_counters(p, &v);
		out->wire_frames_sent += v.tx_frames;
		out->wire_frames_received += v.rx_frames;
		out->wire_frames_lost += v.tx_lost + v.rx_overflow + v.rx_bad;
	}
	out->wire_packets_sent = out->wire_packets_send_lost = 0;
	out->wire_packets_received = out->wire_packets_dropped = 0;
	out->wire_packets_refused = out->wire_packets_bad_icrc = 0;
	for (unsigned p = 1; p <= 2; p++) {
		struct emu_link_counters l;

		emu_link_counters(p, &l);
		out->wire_packets_sent += l.tx_packets;
		out->wire_packets_send_lost += l.tx_lost;
		out->wire_packets_received += l.rx_packets;
		out->wire_packets_dropped += l.rx_overflow;
		out->wire_packets_refused += l.rx_refused;
		out->wire_packets_bad_icrc += l.rx_bad_icrc;
	}
	return 0;
}

EXPORT int mlx4emu_set_debug(int on)
{
	int old = emu_cfg.debug;

	emu_cfg.debug = on != 0;
	return old;
}
