/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#ifndef MLX4EMU_SYSFS_H
#define MLX4EMU_SYSFS_H

#define EMU_IBDEV_NAME "mlx4_0"
#define EMU_CDEV_PATH "/dev/infiniband/uverbs0"
/* The uverbs open is redirected to /dev/zero, character device 1:5. */
#define EMU_CDEV_TARGET "/dev/zero"
#define EMU_CDEV_MAJMIN "1:5"

/* Builds the tree in a private temporary directory; 0 or -1. */
int emu_sysfs_create(void);
const char *emu_sysfs_root(void);
void emu_sysfs_remove(void);
/* Writes content and a newline to root/rel, creating its directories. */
int emu_sysfs_put(const char *rel, const char *content);
/* Creates root/rel empty (an attribute whose read fails, os/sysfs_gid.h). */
int emu_sysfs_put_empty(const char *rel);
/* Makes root/rel another name of the file root/existing, creating the
 * folders of rel. */
int emu_sysfs_hardlink(const char *rel, const char *existing);
/* Makes root/rel a symbolic link to target (relative to rel's folder),
 * creating the folders of rel. */
int emu_sysfs_link(const char *rel, const char *target);

#endif
