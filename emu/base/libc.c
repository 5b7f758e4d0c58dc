// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "base/libc.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_write)(int, const void *, size_t);
static int (*next_close)(int);
static void *(*next_mmap)(void *, size_t, int, int, int, off_t);
static int (*next_fstat)(int, struct stat *);
static int (*next_munmap)(void *, size_t);
static int (*next_open)(const char *, int, ...);
static int (*next_openat)(int, const char *, int, ...);
static int (*next_socket)(int, int, int);

void *emu_next_symbol(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "mlx4emu: cannot resolve %s\n", name);
		abort();
	}
	return p;
}

ssize_t emu_real_read(int fd, void *buf, size_t len)
{
	if (!next_read)
		*(void **)&next_read = emu_next_symbol("read");
	return next_read(fd, buf, len);
}

ssize_t emu_real_write(int fd, const void *buf, size_t len)
{
	if (!next_write)
		*(void **)&next_write = emu_next_symbol("write");
	return next_write(fd, buf, len);
}

int emu_real_close(int fd)
{
	if (!next_close)
		*(void **)&next_close = emu_next_symbol("close");
	return next_close(fd);
}

void *emu_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!next_mmap)
		*(void **)&next_mmap = emu_next_symbol("mmap");
	return next_mmap(addr, len, prot, flags, fd, off);
}

int emu_real_fstat(int fd, struct stat *st)
{
	if (!next_fstat)
		*(void **)&next_fstat = emu_next_symbol("fstat");
	return next_fstat(fd, st);
}

int emu_real_munmap(void *addr, size_t len)
{
	if (!next_munmap)
		*(void **)&next_munmap = emu_next_symbol("munmap");
	return next_munmap(addr, len);
}

int emu_real_open(const char *path, int flags, mode_t mode)
{
	if (!next_open)
		*(void **)&next_open = emu_next_symbol("open");
	return next_open(path, flags, mode);
}

int emu_real_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	if (!next_openat)
		*(void **)&next_openat = emu_next_symbol("openat");
	return next_openat(dirfd, path, flags, mode);
}

int emu_real_socket(int domain, int type, int protocol)
{
	if (!next_socket)
		*(void **)&next_socket = emu_next_symbol("socket");
	return next_socket(domain, type, protocol);
}
