// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * libc entry points the preload replaces so that libibverbs, unmodified,
 * finds and drives the software device:
 *  - open/openat of /dev/infiniband/uverbs0 opens a memfd holding the
 *    context's UAR and BlueFlame pages; access and stat of that path are
 *    os/paths.c's (/dev/zero's: st_rdev 1:5 matches the sysfs "dev" file),
 *    fstat of the fd is os/device_fd.c's (the same answer);
 *  - ioctl on the device fd answers ENOTTY so every command goes through
 *    the write() ABI;
 *  - write on the device fd is a uverbs command;
 *  - read on a completion channel or async fd takes one event from the
 *    device's queue behind it (adapter/evq.h);
 *  - mmap of the device fd returns the UAR (offset 0) and BlueFlame
 *    (offset page size) pages, read-only when doorbells are trapped
 *    (os/fault.c; munmap forgets the trap), and the HCA core clock page
 *    (offset 3 * page size);
 *  - open of /dev/infiniband/rdma_cm is a connection manager file
 *    (cm/ucma.h): write on it is a ucma command, read EINVAL (the kernel's
 *    has no read), close destroys its ids;
 *  - NETLINK_RDMA sockets fail so discovery falls back to sysfs;
 *  - open of a gid_attrs file of the tree whose attribute the kernel
 *    cannot show marks the descriptor: read, pread and copy_file_range
 *    on it fail as the kernel's read does (os/sysfs_gid.h).
 * Everything else is passed through unchanged.  The library's constructor
 * and destructor (start-up, exit reports) are os/lifecycle.c's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapter/adapter.h"
#include "adapter/channel.h"
#include "adapter/clock.h"
#include "adapter/context.h"
#include "adapter/engine.h"
#include "adapter/lock.h"
#include "base/fdtab.h"
#include "base/libc.h"
#include "cm/ucma.h"
#include "cmd/cmd.h"
#include "os/netif_ioctl.h"
#include "os/rtnl.h"
#include "os/fault.h"
#include "os/sysfs.h"
#include "os/sysfs_gid.h"

#define EXPORT __attribute__((visibility("default")))

static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_ioctl)(int, unsigned long, ...);
static void *(*real_mmap64)(void *, size_t, int, int, int, off64_t);
static int (*real_socket)(int, int, int);

#define RESOLVE(var, name) \
	do { if (!(var)) *(void **)&(var) = emu_next_symbol(name); } while (0)

static bool is_cdev_path(const char *path)
{
	return path && !strcmp(path, EMU_CDEV_PATH);
}

static bool is_ucma_path(const char *path)
{
	return path && !strcmp(path, EMU_UCMA_PATH);
}

static int emu_open_ucma(int flags)
{
	int saved = errno;
	int fd = emu_ucma_open(flags);

	if (fd >= 0)
		errno = saved;
	return fd;
}

/*
 * errno as the real calls leave it: a device call that succeeds restores
 * the errno it found (the work behind it makes system calls of its own),
 * and the ENOTTY of the refused ioctl, which libibverbs answers by
 * sending the same command through write(), is undone when that write
 * succeeds, as if the ioctl had been the successful call it is on a real
 * kernel.
 */
static __thread int errno_before_ioctl;
static __thread bool ioctl_refused;

static int refuse_ioctl(void)
{
	if (!ioctl_refused)
		errno_before_ioctl = errno;
	ioctl_refused = true;
	errno = ENOTTY;
	return -1;
}

static ssize_t device_write(struct emu_ctx *ctx, const void *buf, size_t len)
{
	int saved = ioctl_refused ? errno_before_ioctl : errno;
	ssize_t n;

	ioctl_refused = false;
	n = emu_uverbs_write(ctx, buf, len);
	if (n >= 0)
		errno = saved;
	return n;
}

static ssize_t event_read(struct emu_evq *q, void *buf, size_t len)
{
	int saved = errno;
	ssize_t n = emu_evq_read(q, buf, len);

	if (n >= 0)
		errno = saved;
	return n;
}

/*
 * The device file is a memfd holding the context's UAR and BlueFlame
 * pages: a program (or a memory-hook library) that maps it with the raw
 * mmap system call gets the very pages the device serves.  fstat() of it
 * answers as the character device (os/device_fd.c).
 */
static int emu_open_device(int flags)
{
	long page = sysconf(_SC_PAGESIZE);
	int saved = errno;
	int fd, i;

	fd = memfd_create("mlx4emu-uverbs0", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (fd < 0)
		return fd;
	if (fd >= EMU_FD_MAX || ftruncate(fd, 2 * page)) {
		int err = fd >= EMU_FD_MAX ? EMFILE : errno;

		emu_real_close(fd);
		errno = err;
		return -1;
	}
	i = emu_ctx_open(fd);
	if (i >= 0) {
		EMU_TRACE("open %s -> fd %d (context %d)", EMU_CDEV_PATH, fd, i);
		errno = saved;
		return fd;
	}
	emu_real_close(fd);
	/* more device files open than the adapter has contexts, and as
	 * many again that never asked for one */
	errno = EMFILE;
	return -1;
}

static struct emu_ctx *ctx_of_fd(int fd)
{
	int idx = emu_fd_ctx(fd);

	return idx >= 0 ? emu_ctx_at(idx) : NULL;
}

/* The mode argument exists only when the flags create a file. */
#define OPEN_MODE(flags, mode)					\
	do {							\
		if ((flags) & (O_CREAT | O_TMPFILE)) {		\
			va_list ap;				\
								\
			va_start(ap, flags);			\
			(mode) = va_arg(ap, mode_t);		\
			va_end(ap);				\
		}						\
	} while (0)

/*
 * Every descriptor an open hands out starts unmarked (the number may have
 * been a failing attribute's, closed where close() is not interposed);
 * one of a gid_attrs file the kernel fails to show is marked.
 */
static int note_open(int fd, const char *path)
{
	if (fd >= 0)
		emu_fd_set_read_errno(fd, path ? emu_sysfs_read_errno(path) : 0);
	return fd;
}

EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	if (is_cdev_path(path))
		return emu_open_device(flags);
	if (is_ucma_path(path))
		return emu_open_ucma(flags);
	RESOLVE(real_open, "open");
	return note_open(real_open(path, flags, mode), path);
}

EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	if (is_cdev_path(path))
		return emu_open_device(flags);
	if (is_ucma_path(path))
		return emu_open_ucma(flags);
	RESOLVE(real_open64, "open64");
	return note_open(real_open64(path, flags, mode), path);
}

int __open_2(const char *path, int flags);
EXPORT int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

int __open64_2(const char *path, int flags);
EXPORT int __open64_2(const char *path, int flags)
{
	return open64(path, flags);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	if (is_cdev_path(path))
		return emu_open_device(flags);
	if (is_ucma_path(path))
		return emu_open_ucma(flags);
	RESOLVE(real_openat, "openat");
	return note_open(real_openat(dirfd, path, flags, mode), path);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	if (is_cdev_path(path))
		return emu_open_device(flags);
	if (is_ucma_path(path))
		return emu_open_ucma(flags);
	RESOLVE(real_openat64, "openat64");
	return note_open(real_openat64(dirfd, path, flags, mode), path);
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	/* no ioctl framework: libibverbs falls back to write() */
	if (ctx_of_fd(fd))
		return refuse_ioctl();
	{
		int ret;

		if (emu_netif_ioctl(fd, request, arg, &ret))
			return ret;
	}
	RESOLVE(real_ioctl, "ioctl");
	return real_ioctl(fd, request, arg);
}

EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	struct emu_ctx *ctx = ctx_of_fd(fd);

	int cm = emu_fd_cm(fd);

	if (ctx)
		return device_write(ctx, buf, len);
	if (cm >= 0) {
		int saved = errno;
		ssize_t n = emu_ucma_write(cm, buf, len);

		if (n >= 0)
			errno = saved;
		return n;
	}
	return emu_real_write(fd, buf, len);
}

/* The queue behind a completion channel or async fd, or NULL. */
static struct emu_evq *event_queue_of_fd(int fd)
{
	int i = emu_fd_channel(fd);

	if (i >= 0)
		return emu_channel_evq(i);
	i = emu_fd_async(fd);
	return i >= 0 ? &emu_ctx_at(i)->async_q : NULL;
}

/* A failing attribute's descriptor (note_open): errno set, true. */
static bool attribute_refused(int fd)
{
	int err = emu_fd_read_errno(fd);

	if (err)
		errno = err;
	return err != 0;
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	struct emu_evq *q = event_queue_of_fd(fd);

	if (q)
		return event_read(q, buf, len);
	if (emu_fd_cm(fd) >= 0) {
		errno = EINVAL;
		return -1;
	}
	if (attribute_refused(fd))
		return -1;
	return emu_real_read(fd, buf, len);
}

ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort();	/* what the fortified C library does */
	return read(fd, buf, len);
}

/*
 * The other ways of reading a file fail on a failing attribute as read()
 * does: coreutils' cat tries copy_file_range first and, on EINVAL as on a
 * real sysfs file, falls back to read().
 */
static ssize_t (*real_pread)(int, void *, size_t, off_t);
static ssize_t (*real_pread64)(int, void *, size_t, off64_t);
static ssize_t (*real_copy_file_range)(int, off64_t *, int, off64_t *, size_t,
				       unsigned int);

EXPORT ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
	if (attribute_refused(fd))
		return -1;
	RESOLVE(real_pread, "pread");
	return real_pread(fd, buf, len, off);
}

EXPORT ssize_t pread64(int fd, void *buf, size_t len, off64_t off)
{
	if (attribute_refused(fd))
		return -1;
	RESOLVE(real_pread64, "pread64");
	return real_pread64(fd, buf, len, off);
}

EXPORT ssize_t copy_file_range(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out,
			       size_t len, unsigned int flags)
{
	if (attribute_refused(fd_in))
		return -1;
	RESOLVE(real_copy_file_range, "copy_file_range");
	return real_copy_file_range(fd_in, off_in, fd_out, off_out, len, flags);
}

/*
 * The UAR and BlueFlame pages of a context live in the memfd that is the
 * device fd: every mapping of them (libmlx4's, a direct-verbs library's
 * own, a raw system call's) is the same memory, as mapping a device page
 * twice would be, and the engine keeps its own mapping so that a user
 * munmap never pulls it away.
 */
/*
 * Offset 3 * page size: the HCA core clock page, one for the device, read
 * only (libmlx4 maps it PROT_READ; a store into it faults).
 */
static void *clock_mmap(size_t len, int prot)
{
	int fd;

	emu_adapter_lock();
	fd = emu_clock_page_fd();
	emu_adapter_unlock();
	if (len != (size_t)sysconf(_SC_PAGESIZE) || fd < 0 || (prot & PROT_WRITE)) {
		errno = fd < 0 ? ENODEV : EINVAL;
		return MAP_FAILED;
	}
	return emu_real_mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
}

static void *device_mmap_pages(struct emu_ctx *ctx, size_t len, int prot, off_t off);

/*
 * With trapped doorbells the program's mapping is read-only: every store
 * to it faults and os/fault.c turns it into the doorbell or BlueFlame
 * write it is.  When the trap table is full the context is polled.
 */
static void *device_mmap(struct emu_ctx *ctx, size_t len, int prot, off_t off)
{
	int saved = errno;
	void *p = device_mmap_pages(ctx, len, prot, off);

	if (p != MAP_FAILED)
		errno = saved;
	return p;
}

static void *device_mmap_pages(struct emu_ctx *ctx, size_t len, int prot, off_t off)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = MAP_FAILED;
	bool trapped = false;

	if (off == 3 * page)
		return clock_mmap(len, prot);
	if (len != (size_t)page || (off != 0 && off != page) ||
	    (off == page && !emu_cfg.bf_reg_size)) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	emu_adapter_lock();
	if (emu_cfg.doorbell_trap && !atomic_load(&ctx->db_poll)) {
		p = emu_real_mmap(NULL, len, PROT_READ, MAP_SHARED, ctx->page_fd, off);
		trapped = p != MAP_FAILED &&
			  emu_fault_add_mapping(p, emu_ctx_index(ctx), off != 0);
		if (p != MAP_FAILED && !trapped) {
			munmap(p, len);
			p = MAP_FAILED;
			atomic_store(&ctx->db_poll, true);
			emu_engine_lists_changed();
		}
	}
	if (!trapped)
		p = emu_real_mmap(NULL, len, prot | PROT_READ, MAP_SHARED, ctx->page_fd, off);
	emu_adapter_unlock();
	EMU_TRACE("mmap fd %d offset %ld -> %p (%s, %s)", ctx->cmd_fd, (long)off, p,
		  off ? "BlueFlame page" : "UAR page",
		  trapped ? "stores trapped" : "stores polled");
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct emu_ctx *ctx = ctx_of_fd(fd);

	if (ctx)
		return device_mmap(ctx, len, prot, off);
	return emu_real_mmap(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	struct emu_ctx *ctx = ctx_of_fd(fd);

	if (ctx)
		return device_mmap(ctx, len, prot, (off_t)off);
	RESOLVE(real_mmap64, "mmap64");
	return real_mmap64(addr, len, prot, flags, fd, off);
}

static int (*real_munmap)(void *, size_t);

EXPORT int munmap(void *addr, size_t len)
{
	emu_fault_forget_range(addr, len);
	RESOLVE(real_munmap, "munmap");
	return real_munmap(addr, len);
}

EXPORT int close(int fd)
{
	struct emu_fd_owner o = emu_fd_forget(fd);
	int saved = errno;
	int ret;

	if (o.ctx >= 0) {
		EMU_TRACE("close device fd %d", fd);
		emu_ctx_release(emu_ctx_at(o.ctx));
	}
	if (o.channel >= 0)
		emu_channel_release(o.channel);
	if (o.async_ctx >= 0)
		emu_evq_close(&emu_ctx_at(o.async_ctx)->async_q);
	if (o.cm >= 0)
		emu_ucma_close(o.cm);
	if (o.rtnl)
		emu_rtnl_closed(fd);
	ret = emu_real_close(fd);
	if (!ret)
		errno = saved;
	return ret;
}

EXPORT int socket(int domain, int type, int protocol)
{
	int fd;

	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		/* make libibverbs enumerate through the fake sysfs tree */
		errno = EPROTONOSUPPORT;
		return -1;
	}
	RESOLVE(real_socket, "socket");
	fd = real_socket(domain, type, protocol);
	if (fd >= 0 && domain == AF_NETLINK && protocol == NETLINK_ROUTE)
		emu_rtnl_opened(fd);
	return fd;
}
