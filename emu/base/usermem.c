// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#include "base/usermem.h"

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

int emu_copy_out(uint64_t dst, const void *src, size_t len)
{
	struct iovec local = { (void *)src, len };
	struct iovec remote = { (void *)(uintptr_t)dst, len };

	if (!len)
		return 0;
	if (process_vm_writev(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)len)
		return EFAULT;
	return 0;
}

int emu_copy_in(void *dst, uint64_t src, size_t len)
{
	struct iovec local = { dst, len };
	struct iovec remote = { (void *)(uintptr_t)src, len };

	if (!len)
		return 0;
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != (ssize_t)len)
		return EFAULT;
	return 0;
}

int emu_probe_rw(uint64_t addr, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = addr + len;

	if (!addr || !len || end < addr)
		return EFAULT;
	/* read one byte of every page and write it back unchanged */
	for (uint64_t p = addr; p < end; p = (p | (uint64_t)(page - 1)) + 1) {
		uint8_t b;

		if (emu_copy_in(&b, p, 1) || emu_copy_out(p, &b, 1))
			return EFAULT;
	}
	return 0;
}

int emu_probe_r(uint64_t addr, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t end = addr + len;
	enum { BATCH = 512 };
	uint8_t sink[BATCH];
	struct iovec local[BATCH], remote[BATCH];

	if (!addr || !len || end < addr)
		return EFAULT;
	/* one byte of every page, many pages per system call */
	for (uint64_t p = addr; p < end;) {
		int n = 0;

		for (; n < BATCH && p < end; n++, p = (p | (uint64_t)(page - 1)) + 1) {
			local[n].iov_base = &sink[n];
			local[n].iov_len = 1;
			remote[n].iov_base = (void *)(uintptr_t)p;
			remote[n].iov_len = 1;
		}
		if (process_vm_readv(getpid(), local, (unsigned long)n, remote,
				     (unsigned long)n, 0) != n)
			return EFAULT;
	}
	return 0;
}
