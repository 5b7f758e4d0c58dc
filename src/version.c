// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Run-time version of libmlx4dv. MLX4DV_LIB_VERSION_* come from the CMake
 * project version; a build-time check keeps the header's hand-written
 * MLX4DV_VERSION_* equal to them.
 */
#include "internal.h"

#define MLX4DV_STR2(x) #x
#define MLX4DV_STR(x) MLX4DV_STR2(x)

#if MLX4DV_LIB_VERSION_MAJOR != MLX4DV_VERSION_MAJOR || \
	MLX4DV_LIB_VERSION_MINOR != MLX4DV_VERSION_MINOR || \
	MLX4DV_LIB_VERSION_PATCH != MLX4DV_VERSION_PATCH
#error "MLX4DV_VERSION_* in include/infiniband/mlx4dv.h differ from the project version in CMakeLists.txt"
#endif

uint32_t mlx4dv_version(void)
{
	return MLX4DV_VERSION_ENCODE(MLX4DV_LIB_VERSION_MAJOR,
				     MLX4DV_LIB_VERSION_MINOR,
				     MLX4DV_LIB_VERSION_PATCH);
}

const char *mlx4dv_version_string(void)
{
	return MLX4DV_STR(MLX4DV_LIB_VERSION_MAJOR) "."
	       MLX4DV_STR(MLX4DV_LIB_VERSION_MINOR) "."
	       MLX4DV_STR(MLX4DV_LIB_VERSION_PATCH);
}
