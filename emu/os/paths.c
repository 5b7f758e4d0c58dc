// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Path-based discovery of the device: access, faccessat, euidaccess,
 * eaccess and the stat family (stat, lstat, fstatat, statx, their 64-bit
 * names and the __xstat entry points older binaries call) of
 * /dev/infiniband/uverbs0 answer for the character device behind it,
 * /dev/zero (1:5, crw-rw-rw- as a uverbs node), so a library that probes
 * the device before opening it finds it.  Every other path, and every
 * errno, is the C library's own.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/libc.h"
#include "os/sysfs.h"

#define EXPORT __attribute__((visibility("default")))

/* The C library's definition of name, typed as this one. */
#define NEXT(name) \
	static __typeof__(&name) next_##name; \
	if (!next_##name) \
		*(void **)&next_##name = emu_next_symbol(#name)

static const char *device_path(const char *path)
{
	return path && !strcmp(path, EMU_CDEV_PATH) ? EMU_CDEV_TARGET : path;
}

EXPORT int access(const char *path, int mode)
{
	NEXT(access);
	return next_access(device_path(path), mode);
}

EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	NEXT(faccessat);
	return next_faccessat(dirfd, device_path(path), mode, flags);
}

EXPORT int euidaccess(const char *path, int mode)
{
	NEXT(euidaccess);
	return next_euidaccess(device_path(path), mode);
}

EXPORT int eaccess(const char *path, int mode)
{
	NEXT(eaccess);
	return next_eaccess(device_path(path), mode);
}

EXPORT int stat(const char *path, struct stat *st)
{
	NEXT(stat);
	return next_stat(device_path(path), st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	NEXT(stat64);
	return next_stat64(device_path(path), st);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	NEXT(lstat);
	return next_lstat(device_path(path), st);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	NEXT(lstat64);
	return next_lstat64(device_path(path), st);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	NEXT(fstatat);
	return next_fstatat(dirfd, device_path(path), st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	NEXT(fstatat64);
	return next_fstatat64(dirfd, device_path(path), st, flags);
}

EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
		 struct statx *st)
{
	NEXT(statx);
	return next_statx(dirfd, device_path(path), flags, mask, st);
}

/* The stat entry points of binaries built against glibc before 2.33. */
int __xstat(int ver, const char *path, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __lxstat(int ver, const char *path, struct stat *st);
int __lxstat64(int ver, const char *path, struct stat64 *st);
int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags);
int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags);

EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	NEXT(__xstat);
	return next___xstat(ver, device_path(path), st);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	NEXT(__xstat64);
	return next___xstat64(ver, device_path(path), st);
}

EXPORT int __lxstat(int ver, const char *path, struct stat *st)
{
	NEXT(__lxstat);
	return next___lxstat(ver, device_path(path), st);
}

EXPORT int __lxstat64(int ver, const char *path, struct stat64 *st)
{
	NEXT(__lxstat64);
	return next___lxstat64(ver, device_path(path), st);
}

EXPORT int __fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	NEXT(__fxstatat);
	return next___fxstatat(ver, dirfd, device_path(path), st, flags);
}

EXPORT int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	NEXT(__fxstatat64);
	return next___fxstatat64(ver, dirfd, device_path(path), st, flags);
}
