/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * One function per barrier and device write of the header's Part 2, so
 * that a disassembly of this object shows the instruction each one
 * compiles to on each architecture (tests/header/barrier_check.cmake).
 */
#include <infiniband/mlx4dv.h>

void probe_barrier_to_device(void);
void probe_barrier_from_device(void);
void probe_barrier_release_to_device(void);
void probe_wc_flush(void);
void probe_mmio_write32_be(void *reg, __be32 val);
void probe_mmio_write64_be(void *reg, __be64 val);
void probe_wc_copy64(void *dst, const void *src);

void probe_barrier_to_device(void)
{
	mlx4dv_barrier_to_device();
}

void probe_barrier_from_device(void)
{
	mlx4dv_barrier_from_device();
}

void probe_barrier_release_to_device(void)
{
	mlx4dv_barrier_release_to_device();
}

void probe_wc_flush(void)
{
	mlx4dv_wc_flush();
}

void probe_mmio_write32_be(void *reg, __be32 val)
{
	mlx4dv_mmio_write32_be(reg, val);
}

void probe_mmio_write64_be(void *reg, __be64 val)
{
	mlx4dv_mmio_write64_be(reg, val);
}

void probe_wc_copy64(void *dst, const void *src)
{
	mlx4dv_wc_copy64(dst, src);
}
