// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The raw mmap system call maps the device's own pages.
 */
#include "exact.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

void test_raw_mmap(void **state)
{
	struct emu_env e;
	struct hq h;
	struct ibv_wc wc;
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *uar, *bf;

	(void)state;
	emu_env_open(&e, 1);
	/* libibverbs' own check of the device file (util/open_cdev.c) */
	assert_int_equal(fstat(e.ctx->cmd_fd, &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	hq_open(&e, &h, 16);
	uar = (uint8_t *)syscall(SYS_mmap, NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
				 e.ctx->cmd_fd, 0);
	assert_true(uar != MAP_FAILED);
	bf = (uint8_t *)syscall(SYS_mmap, NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED,
				e.ctx->cmd_fd, page);
	assert_true(bf != MAP_FAILED);
	/* a BlueFlame-page store is an ordinary store, not SIGBUS */
	*(volatile uint64_t *)(bf + 2048) = 0;
	emu_fill(h.q.buf, 128, 21);
	hq_write(&h, (uintptr_t)h.q.buf, h.q.mr->lkey, (uintptr_t)h.q.buf + 2048,
		 h.q.mr->rkey, 128);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	*(volatile uint32_t *)(uar + 0x14) = h.d.doorbell_qpn;
	assert_int_equal(emu_poll(h.q.scq, &wc, 1), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(h.q.buf + 2048, h.q.buf, 128);
	/* the same page as libmlx4's mapping of the UAR */
	assert_memory_equal((uint8_t *)h.d.sdb, uar + 0x14, 4);
	/* the context is polled from now on; a libmlx4 post still works */
	assert_device_works(&e);
	munmap(uar, (size_t)page);
	munmap(bf, (size_t)page);
	emu_qp_destroy(&h.q);
	emu_env_close(&e);
}
