// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The HCA core clock.  The counter is CLOCK_MONOTONIC scaled to the device
 * frequency, so every process on a host sees the same clock.  The page
 * libmlx4 maps holds it at EMU_CLOCK_PAGE_OFFSET as two big-endian 32-bit
 * words, high word first (libmlx4 verbs.c mlx4_read_clock reads high, low,
 * high and retries when the high word moved).  A store of both words at
 * once (8-byte aligned) keeps that reading exact.  Programs read the page
 * with plain loads, so it is only as fresh as its last store: the engine
 * refreshes it on every pass and, while idle, at least every
 * REFRESH_NS; every timestamped CQE stores the clock first, so a read made
 * after a CQE was seen is never older than its stamp.
 */
#include "adapter/clock.h"

#include <endian.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "adapter/adapter.h"
#include "adapter/engine.h"
#include "base/libc.h"

#define REFRESH_NS 1000000ull

static int page_fd = -1;
static uint64_t *counter;	/* the engine's mapping, big-endian */
static uint64_t last_ticks;
static uint64_t last_store_ns;

static uint64_t ns_to_ticks(uint64_t ns)
{
	/* split so that ns * kHz cannot overflow: exact floor of
	 * ns * kHz / 10^6 */
	return ns / 1000000u * EMU_HCA_CORE_CLOCK_KHZ +
	       ns % 1000000u * EMU_HCA_CORE_CLOCK_KHZ / 1000000u;
}

static uint64_t sample_at(uint64_t now_ns)
{
	uint64_t t = ns_to_ticks(now_ns);

	if (t < last_ticks)
		t = last_ticks;
	last_ticks = t;
	last_store_ns = now_ns;
	if (counter)
		__atomic_store_n(counter, htobe64(t), __ATOMIC_RELEASE);
	return t;
}

uint64_t emu_clock_sample(void)
{
	return sample_at(emu_now_ns());
}

static int clock_poll(struct emu_engine_source *src, uint64_t now_ns)
{
	(void)src;
	sample_at(now_ns);
	return 0;	/* keeping time is not work: the engine may still nap */
}

static uint64_t clock_deadline(struct emu_engine_source *src)
{
	(void)src;
	return last_store_ns + REFRESH_NS;
}

int emu_clock_init(void)
{
	static struct emu_engine_source src = {
		.fd = -1, .poll = clock_poll, .deadline = clock_deadline,
	};
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int fd, err;

	if (page_fd >= 0)
		return 0;
	fd = memfd_create("mlx4emu-clock", MFD_CLOEXEC);
	if (fd < 0)
		return errno;
	if (ftruncate(fd, page)) {
		err = errno;
		emu_real_close(fd);
		return err;
	}
	p = emu_real_mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		err = errno;
		emu_real_close(fd);
		return err;
	}
	err = emu_engine_add_source(&src);
	if (err) {
		emu_real_munmap(p, (size_t)page);
		emu_real_close(fd);
		return err;
	}
	counter = (uint64_t *)((uint8_t *)p + EMU_CLOCK_PAGE_OFFSET);
	page_fd = fd;
	emu_clock_sample();
	return 0;
}

int emu_clock_page_fd(void)
{
	return page_fd;
}
