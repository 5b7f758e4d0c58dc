/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * The GID table of each port as ib_core's sysfs (Linux 6.1) shows it, one
 * file per index of the port's table in each of three folders:
 *
 *   ports/P/gids/I             the GID; zeros for an empty entry
 *   ports/P/gid_attrs/types/I  "IB/RoCE v1" or "RoCE v2"; reading an
 *                              empty entry's fails with EINVAL
 *   ports/P/gid_attrs/ndevs/I  the interface of a RoCE entry; InfiniBand
 *                              entries have none and empty entries no
 *                              attributes: reading fails with EINVAL
 *
 * libibverbs 44 reads these for ibv_query_gid_ex and ibv_query_gid_table
 * (the ioctl path is refused, os/preload.c): EINVAL from types/I means
 * "IB/RoCE v1" and from ndevs/I "no interface", while a missing types/I
 * below an existing gid_attrs folder fails the whole query.
 */
#ifndef MLX4EMU_SYSFS_GID_H
#define MLX4EMU_SYSFS_GID_H

/* Writes the three folders of the port into the tree; 0 or -1. */
int emu_sysfs_gid_create(unsigned port);

/*
 * The errno every read() of the file at path fails with when path is a
 * gid_attrs file of the tree whose attribute the kernel would fail to
 * show, else 0.  path is absolute, as libibverbs opens it; a path
 * relative to a directory descriptor is not recognised.
 */
int emu_sysfs_read_errno(const char *path);

#endif
