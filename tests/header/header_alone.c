/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The public header must compile on its own, first and alone. */
#include <infiniband/mlx4dv.h>
