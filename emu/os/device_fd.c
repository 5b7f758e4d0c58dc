// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * fstat() and __fxstat() on the device fd and on an rdma_cm fd (an
 * eventfd; librdmacm's open_cdev() too wants a character device).  The fd is a memfd (so that
 * raw mmap system calls map the device's pages), but libibverbs checks
 * that the file it opened is the character device sysfs names
 * (util/open_cdev.c: S_ISCHR and st_rdev): the answer is that of
 * EMU_CDEV_TARGET, as stat() of the device path gives.  Other fds pass
 * through unchanged.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fdtab.h"
#include "base/libc.h"
#include "os/sysfs.h"

#define EXPORT __attribute__((visibility("default")))

static int (*real_fstat)(int, struct stat *);
static int (*real_fstat64)(int, struct stat64 *);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_fxstat)(int, int, struct stat *);
static int (*real_fxstat64)(int, int, struct stat64 *);

#define RESOLVE(var, name) \
	do { if (!(var)) *(void **)&(var) = emu_next_symbol(name); } while (0)

static bool is_device_fd(int fd)
{
	return emu_fd_ctx(fd) >= 0 || emu_fd_cm(fd) >= 0;
}

static int device_stat(struct stat *st)
{
	RESOLVE(real_fstatat, "fstatat");
	return real_fstatat(AT_FDCWD, EMU_CDEV_TARGET, st, 0);
}

static int device_stat64(struct stat64 *st)
{
	struct stat s;
	int r = device_stat(&s);

	if (!r)
		memcpy(st, &s, sizeof(*st) < sizeof(s) ? sizeof(*st) : sizeof(s));
	return r;
}

EXPORT int fstat(int fd, struct stat *st)
{
	if (is_device_fd(fd))
		return device_stat(st);
	RESOLVE(real_fstat, "fstat");
	return real_fstat(fd, st);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	if (is_device_fd(fd))
		return device_stat64(st);
	RESOLVE(real_fstat64, "fstat64");
	return real_fstat64(fd, st);
}

/* binaries built against glibc before 2.33 call these */
int __fxstat(int ver, int fd, struct stat *st);
EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	if (is_device_fd(fd))
		return device_stat(st);
	RESOLVE(real_fxstat, "__fxstat");
	return real_fxstat(ver, fd, st);
}

int __fxstat64(int ver, int fd, struct stat64 *st);
EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	if (is_device_fd(fd))
		return device_stat64(st);
	RESOLVE(real_fxstat64, "__fxstat64");
	return real_fxstat64(ver, fd, st);
}
