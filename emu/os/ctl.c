// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The exported control API (mlx4emu_ctl.h). */
#include <errno.h>

#include "adapter/counters.h"
#include "adapter/engine.h"
#include "adapter/inject.h"
#include "adapter/lock.h"
#include "adapter/port.h"
#include "mlx4emu_ctl.h"
#include "wire/link.h"
#include "wire/vxlan.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int mlx4emu_pause(void)
{
	emu_engine_pause();
	return 0;
}

EXPORT int mlx4emu_resume(void)
{
	emu_engine_resume();
	return 0;
}

EXPORT int mlx4emu_wait_idle(unsigned timeout_ms)
{
	return emu_engine_wait_idle(timeout_ms);
}

static int set_fault_locked(const struct mlx4emu_fault *f)
{
	if (!f->count)
		return EINVAL;
	switch (f->type) {
	case MLX4EMU_FAULT_ERROR_CQE:
		if (f->syndrome > 0xff || !f->syndrome)
			return EINVAL;
		emu_inject_error_cqe(f->qpn, f->count, (uint8_t)f->syndrome);
		return 0;
	case MLX4EMU_FAULT_QP_ERROR:
		emu_inject_qp_error(f->qpn, f->count);
		return 0;
	case MLX4EMU_FAULT_CQ_OVERRUN:
		return emu_inject_cq_overrun(f->cqn, f->count);
	default:
		return EINVAL;
	}
}

EXPORT int mlx4emu_set_fault(const struct mlx4emu_fault *fault)
{
	int err;

	if (!fault)
		return EINVAL;
	emu_adapter_lock();
	err = set_fault_locked(fault);
	emu_adapter_unlock();
	return err;
}

EXPORT int mlx4emu_clear_faults(void)
{
	emu_adapter_lock();
	emu_inject_clear();
	emu_adapter_unlock();
	return 0;
}

EXPORT int mlx4emu_get_counters(struct mlx4emu_counters *out)
{
	struct emu_counters c;

	if (!out)
		return EINVAL;
	emu_counters_read(&c);
	out->wqes_executed = c.wqes;
	out->cqes_written = c.cqes;
	out->error_cqes = c.error_cqes;
	out->comp_events = c.comp_events;
	out->async_events = c.async_events;
	out->strict_errors = c.strict_errors;
	out->bf_posts = c.bf_wqes;
	out->rnr_naks = c.rnr_naks;
	out->packets = c.packets;
	out->engine_passes = c.passes;
	out->engine_idle_runnable = c.idle_runnable;
	out->engine_idle_asleep = c.idle_asleep;
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
	out->wire_credit_packets_sent = out->wire_credit_packets_send_lost = 0;
	out->wire_credit_packets_received = 0;
	for (unsigned p = 1; p <= 2; p++) {
		struct emu_link_counters l;

		emu_link_counters(p, &l);
		out->wire_packets_sent += l.tx_packets;
		out->wire_packets_send_lost += l.tx_lost;
		out->wire_packets_received += l.rx_packets;
		out->wire_packets_dropped += l.rx_overflow;
		out->wire_packets_refused += l.rx_refused;
		out->wire_packets_bad_icrc += l.rx_bad_icrc;
		out->wire_credit_packets_sent += l.tx_credits;
		out->wire_credit_packets_send_lost += l.tx_credits_lost;
		out->wire_credit_packets_received += l.rx_credits;
	}
	return 0;
}

EXPORT int mlx4emu_set_debug(int on)
{
	int old = emu_cfg.debug;

	emu_cfg.debug = on != 0;
	return old;
}
