/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Control API of the software ConnectX-3 (libmlx4emu.so), for tests.
 *
 * The functions are exported by the preload library.  A program that must
 * also build and run without the emulator looks them up at run time with
 * mlx4emu_ctl_load(), which uses dlsym(RTLD_DEFAULT, ...) and fails (-1)
 * when the emulator is not loaded.  All functions are thread-safe.
 */
#ifndef MLX4EMU_CTL_H
#define MLX4EMU_CTL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Any QP / CQ: the fault applies to the next one created or used. */
#define MLX4EMU_ANY 0u

enum mlx4emu_fault_type {
	/* error CQE with `syndrome` instead of executing the count-th WQE
	 * (1-based, counted from the time the fault is set) of QP `qpn` */
	MLX4EMU_FAULT_ERROR_CQE = 1,
	/* QP `qpn` moves to the error state after `count` more WQEs */
	MLX4EMU_FAULT_QP_ERROR = 2,
	/* CQ `cqn` overruns at its count-th CQE from now: the CQE is lost,
	 * the CQ stops and IBV_EVENT_CQ_ERR is raised on the async fd */
	MLX4EMU_FAULT_CQ_OVERRUN = 3,
};

struct mlx4emu_fault {
	uint32_t type;		/* enum mlx4emu_fault_type */
	uint32_t qpn;		/* QPN (host order) or MLX4EMU_ANY */
	uint32_t cqn;		/* CQN or MLX4EMU_ANY (CQ_OVERRUN) */
	uint32_t syndrome;	/* CQE syndrome, e.g. 0x04 LOCAL_PROT_ERR */
	uint64_t count;		/* >= 1 */
};

struct mlx4emu_counters {
	uint64_t wqes_executed;	/* send WQEs consumed (incl. errors, flushes
				 * are not counted) */
	uint64_t cqes_written;	/* all CQEs, including error CQEs */
	uint64_t error_cqes;	/* error CQEs (syndrome != 0), incl. flushes */
	uint64_t comp_events;	/* completion events delivered */
	uint64_t async_events;	/* async events delivered */
	uint64_t strict_errors;	/* WQEs refused by a strict check */
	uint64_t bf_posts;	/* BlueFlame writes observed */
	uint64_t rnr_naks;	/* RNR NAKs (each retry counts) */
	uint64_t packets;	/* Ethernet frames delivered to raw QPs */
	uint64_t engine_passes;	/* scans of all queues */
	uint64_t mtu_drops;	/* frames a receiving port dropped as longer
				 * than its MTU + 18 (header and one tag) */
	uint64_t link_down_drops; /* frames sent while a link was down */
	uint64_t no_wqe_drops;	/* frames a raw QP or WQ had no receive WQE
				 * for (a port's rx_out_of_buffer) */
	/* raw Ethernet frames between adapters (VXLAN, UDP 4789) */
	uint64_t wire_frames_sent;	/* handed to the kernel */
	uint64_t wire_frames_received;	/* taken by a port */
	uint64_t wire_frames_lost;	/* refused on send (socket buffer
					 * full, oversize, no socket), dropped
					 * by a full receive buffer, not VXLAN,
					 * or of another segment (VNI) */
	/* RoCEv2 packets between adapters (UDP 4791), both ports */
	uint64_t wire_packets_sent;	/* handed to the kernel */
	uint64_t wire_packets_send_lost; /* refused by the kernel on send, or
					  * UD and UC discarded for a peer
					  * that answered no datagram credit
					  * request for 500 ms */
	uint64_t wire_packets_received;	/* whole, with a good ICRC */
	uint64_t wire_packets_dropped;	/* dropped by the kernel before the
					 * device saw them: a full receive
					 * buffer, or a sender the port's
					 * filter does not admit (no QP is
					 * connected to it) */
	uint64_t wire_packets_refused;	/* dropped by the receive checks:
					 * no QP of the packet's transport
					 * with its DestQP on the port, in a
					 * state that takes packets, whose
					 * path is the sender; a P_Key other
					 * than 0xffff; an unknown opcode or
					 * a packet shorter than its headers;
					 * a UD datagram to no UD QP ready to
					 * receive or with another Q_Key.
					 * Never answered. */
	uint64_t ud_no_wqe_drops;	/* UD datagrams (from the wire or
					 * this adapter) a QP had no receive
					 * WQE for, both ports */
	/* idle spells of the engine (from a pass without work to the next
	 * with work), by how it waited (emu/README.md, "The engine"): */
	uint64_t engine_idle_runnable;	/* spun, then yielded */
	uint64_t engine_idle_asleep;	/* blocked in ppoll() at once */
	/* RoCEv2 packets (UDP 4791, both ports) dropped on receive because
	 * their ICRC does not match their bytes: no QP saw them, nothing
	 * was answered.  Last, so that the layout before it stays. */
	uint64_t wire_packets_bad_icrc;
	/* Link packets (UDP 4791, both ports): the datagram credits that
	 * pace UD and UC between adapters (emu/README.md, "Link credits"),
	 * left out of wire_packets_* as InfiniBand's port counters leave out
	 * its flow control packets.  After the above, for the same reason. */
	uint64_t wire_credit_packets_sent;	/* handed to the kernel */
	uint64_t wire_credit_packets_send_lost;	/* refused by it on send */
	uint64_t wire_credit_packets_received;	/* with a good ICRC */
};

/* Stops the engine after its current pass; returns 0. Nests: no. */
int mlx4emu_pause(void);
/* Lets the engine run again; returns 0. */
int mlx4emu_resume(void);
/*
 * Waits until every WQE posted before the call has been executed and its
 * CQE written (a complete pass of the engine found nothing to do).
 * Returns 0, ETIMEDOUT, or EBUSY when the engine is paused.  A QP retrying
 * RNR NAKs keeps the device busy.
 */
int mlx4emu_wait_idle(unsigned timeout_ms);
/* Arms a fault; returns 0 or EINVAL. */
int mlx4emu_set_fault(const struct mlx4emu_fault *fault);
/* Disarms every pending fault; returns 0. */
int mlx4emu_clear_faults(void);
/* Copies the counters; returns 0. */
int mlx4emu_get_counters(struct mlx4emu_counters *out);
/* Turns the stderr trace on (1) or off (0); returns the previous value. */
int mlx4emu_set_debug(int on);

/* Function table for run-time lookup. */
struct mlx4emu_ctl {
	int (*pause)(void);
	int (*resume)(void);
	int (*wait_idle)(unsigned timeout_ms);
	int (*set_fault)(const struct mlx4emu_fault *fault);
	int (*clear_faults)(void);
	int (*get_counters)(struct mlx4emu_counters *out);
	int (*set_debug)(int on);
};

#if defined(MLX4EMU_CTL_WANT_LOADER)
#include <dlfcn.h>

/* Fills `ctl` from the loaded emulator; 0 on success, -1 if absent. */
static inline int mlx4emu_ctl_load(struct mlx4emu_ctl *ctl)
{
#define MLX4EMU_CTL_SYM(field, name) \
	do { \
		void *p_ = dlsym(RTLD_DEFAULT, name); \
		if (!p_) \
			return -1; \
		__builtin_memcpy(&ctl->field, &p_, sizeof(p_)); \
	} while (0)
	MLX4EMU_CTL_SYM(pause, "mlx4emu_pause");
	MLX4EMU_CTL_SYM(resume, "mlx4emu_resume");
	MLX4EMU_CTL_SYM(wait_idle, "mlx4emu_wait_idle");
	MLX4EMU_CTL_SYM(set_fault, "mlx4emu_set_fault");
	MLX4EMU_CTL_SYM(clear_faults, "mlx4emu_clear_faults");
	MLX4EMU_CTL_SYM(get_counters, "mlx4emu_get_counters");
	MLX4EMU_CTL_SYM(set_debug, "mlx4emu_set_debug");
#undef MLX4EMU_CTL_SYM
	return 0;
}
#endif

#ifdef __cplusplus
}
#endif

#endif
