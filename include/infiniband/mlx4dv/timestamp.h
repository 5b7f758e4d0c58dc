/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/timestamp.h> - completion timestamps (mlx4dv_ts_*).
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_TIMESTAMP_H_
#define _MLX4DV_TIMESTAMP_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/timestamp.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 5.8 Completion timestamps ---------------------------------------- */
/*
 * A CQ created with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP (ibv_create_cq_ex;
 * the kernel then sets IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) gets in
 * every CQE the low 48 bits of the HCA core clock at the time the device
 * wrote it, in place of sl_vid and rlid (so such a CQ reports no SLID and
 * no SL; libmlx4 refuses IBV_WC_EX_WITH_SLID/SL with it).
 * mlx4dv_cqe_timestamp() (5.3) reads those 48 bits as libmlx4's
 * ibv_wc_read_completion_ts() does. The functions below turn them into
 * time:
 *
 *  - the clock counts ticks at hca_core_clock kHz
 *    (ibv_query_device_ex() -> ibv_device_attr_ex.hca_core_clock; the
 *    kernel's mlx4_ib_query_device reports caps.hca_core_clock MHz times
 *    1000);
 *  - CQE stamps wrap at 2^48 ticks (completion_timestamp_mask
 *    0xffffffffffff, mlx4_ib_query_device), about 7.6 days at 427 MHz;
 *  - the full clock is 64 bits, read by ibv_query_rt_values_ex()
 *    (IBV_VALUES_MASK_RAW_CLOCK; libmlx4 returns the tick count in
 *    raw_clock.tv_nsec, tv_sec 0) from the clock page libmlx4 maps at
 *    offset 3 * page size of the device fd (rdma-core verbs.c
 *    mlx4_read_clock: big-endian high word, then low word, re-read while
 *    the high word moves).
 *
 * All values are host-order integers; nothing here reads the device. The
 * kernel's Ethernet driver decodes the same CQE bytes with one adjustment
 * libmlx4 does not make (mlx4_en en_clock.c mlx4_en_get_cqe_ts adds 1 to
 * bits 16..47 when bits 0..15 are 0); mlx4dv_cqe_timestamp() follows
 * libmlx4, so both APIs agree on every CQE.
 */

/* Bits of a CQE timestamp (completion_timestamp_mask); above INT_MAX, so a
 * macro. */
#define MLX4DV_CQE_TIMESTAMP_MASK	0xffffffffffffULL

/*
 * mlx4dv_ts_delta - ticks from CQE stamp `earlier` to CQE stamp `later`,
 * modulo 2^48: right whenever less than 2^48 ticks passed between them,
 * across a wrap of the 48-bit field too. Either argument may also be a
 * full clock reading (its bits above 47 are ignored).
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ts_delta(uint64_t later, uint64_t earlier)
{
	return (later - earlier) & MLX4DV_CQE_TIMESTAMP_MASK;
}

/*
 * mlx4dv_ts_extend - the full 64-bit clock value of a 48-bit CQE stamp.
 *
 * clock_now is a clock reading (ibv_query_rt_values_ex()) taken after the
 * CQE was written and less than 2^48 ticks later (any time within a few
 * days); the result is the largest value <= clock_now whose low 48 bits
 * are cqe_ts, i.e. clock_now - mlx4dv_ts_delta(clock_now, cqe_ts).
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ts_extend(uint64_t cqe_ts, uint64_t clock_now)
{
	return clock_now - mlx4dv_ts_delta(clock_now, cqe_ts);
}

/*
 * mlx4dv_ts_to_ns - ticks of a clock of hca_core_clock_khz kHz as
 * nanoseconds, rounded down: floor(ticks * 10^6 / khz), computed without
 * the overflow of the plain product, so exact for any ticks whose result
 * fits in 64 bits. Returns 0 when hca_core_clock_khz is 0 (the device
 * reports no clock). Example: 427 ticks at 427000 kHz are 1000 ns.
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ts_to_ns(uint64_t ticks, uint64_t hca_core_clock_khz)
{
	if (!hca_core_clock_khz)
		return 0;
	return ticks / hca_core_clock_khz * 1000000u +
		ticks % hca_core_clock_khz * 1000000u / hca_core_clock_khz;
}

/*
 * mlx4dv_ns_to_ts - nanoseconds as ticks of a hca_core_clock_khz kHz
 * clock, rounded down: floor(ns * khz / 10^6), without overflow for any
 * result that fits in 64 bits and khz below 2^44 (every real clock). For
 * deadlines and budgets compared with mlx4dv_ts_delta().
 */
static MLX4DV_ALWAYS_INLINE uint64_t
mlx4dv_ns_to_ts(uint64_t ns, uint64_t hca_core_clock_khz)
{
	return ns / 1000000u * hca_core_clock_khz +
		ns % 1000000u * hca_core_clock_khz / 1000000u;
}

#ifdef __cplusplus
}
#endif

#endif /* _MLX4DV_TIMESTAMP_H_ */
