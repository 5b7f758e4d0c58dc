/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The tests test_misc.c runs, one file per topic (misc_*.c). */
#ifndef MLX4DV_TEST_EMU_MISC_H
#define MLX4DV_TEST_EMU_MISC_H

#include "emu_test.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#include <infiniband/mlx4dv.h>
#pragma GCC diagnostic pop

/* the access of the connected pairs (emu_pair_open) */
#define MISC_ACCESS (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC | \
		     IBV_ACCESS_LOCAL_WRITE)

void test_resize_cq(void **state);		/* misc_resize_cq.c */
void test_sqd(void **state);			/* misc_sqd.c */
void test_masked_atomics(void **state);		/* misc_masked_atomics.c */
void test_refused_qps(void **state);		/* misc_refused_qps.c */

#endif
