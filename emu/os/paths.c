// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Path-based discovery of the device: access, faccessat, euidaccess,
 * eaccess and the stat family (stat, lstat, fstatat, statx, their 64-bit
 * names and the __xstat entry points older binaries call) of
 * /dev/infiniband/uverbs0 and /dev/infiniband/rdma_cm answer for the
 * character device behind the first,
 * /dev/zero (1:5, crw-rw-rw- as a uverbs node), so a library that probes
 * the device before opening it finds it.  Every other path, and every
 * errno, is the C library's own.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/libc.h"
#include "cm/ucma.h"
#include "os/sysfs.h"

#define EXPORT __attribute__((visibility("default")))

/* The C library's definition of name, typed as this one. */
#define NEXT(name) \
	static __typeof__(&name) next_##name; \
	if (!next_##name) \
		*(void **)&next_##name = emu_next_symbol(#name)

static const char *device_path(const char *path)
{
	if (path && (!strcmp(path, EMU_CDEV_PATH) || !strcmp(path, EMU_UCMA_PATH)))
		return EMU_CDEV_TARGET;
	return path;
}

/* The exported name(params), which passes args on to the C library's
 * name: the call's own arguments, with device_path(path) for the path. */
#define PATH_CALL(name, params, args) \
	EXPORT int name params \
	{ \
		NEXT(name); \
		return next_##name args; \
	}

PATH_CALL(access, (const char *path, int mode), (device_path(path), mode))
PATH_CALL(faccessat, (int dirfd, const char *path, int mode, int flags),
	  (dirfd, device_path(path), mode, flags))
PATH_CALL(euidaccess, (const char *path, int mode), (device_path(path), mode))
PATH_CALL(eaccess, (const char *path, int mode), (device_path(path), mode))
PATH_CALL(stat, (const char *path, struct stat *st), (device_path(path), st))
PATH_CALL(stat64, (const char *path, struct stat64 *st), (device_path(path), st))
PATH_CALL(lstat, (const char *path, struct stat *st), (device_path(path), st))
PATH_CALL(lstat64, (const char *path, struct stat64 *st), (device_path(path), st))
PATH_CALL(fstatat, (int dirfd, const char *path, struct stat *st, int flags),
	  (dirfd, device_path(path), st, flags))
PATH_CALL(fstatat64, (int dirfd, const char *path, struct stat64 *st, int flags),
	  (dirfd, device_path(path), st, flags))
PATH_CALL(statx, (int dirfd, const char *path, int flags, unsigned int mask,
		  struct statx *st),
	  (dirfd, device_path(path), flags, mask, st))

/* The stat entry points of binaries built against glibc before 2.33. */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

PATH_CALL(__xstat, (int ver, const char *path, struct stat *st),
	  (ver, device_path(path), st))
PATH_CALL(__xstat64, (int ver, const char *path, struct stat64 *st),
	  (ver, device_path(path), st))
PATH_CALL(__lxstat, (int ver, const char *path, struct stat *st),
	  (ver, device_path(path), st))
PATH_CALL(__lxstat64, (int ver, const char *path, struct stat64 *st),
	  (ver, device_path(path), st))
PATH_CALL(__fxstatat,
	  (int ver, int dirfd, const char *path, struct stat *st, int flags),
	  (ver, dirfd, device_path(path), st, flags))
PATH_CALL(__fxstatat64,
	  (int ver, int dirfd, const char *path, struct stat64 *st, int flags),
	  (ver, dirfd, device_path(path), st, flags))
