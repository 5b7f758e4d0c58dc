// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m unmapped and -m unmapped_read: registered memory unmapped
 * under a WRITE's source and a READ's target (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "rc_pair.h"

#define U_WRITES 8
#define U_BYTES 65536
#define U_GONE 6		/* the WRITE whose source is unmapped */
#define U_TARGET 0x80000	/* in the server's buffer */

void unmapped_client(struct side *s, int fd)
{
	size_t len = (size_t)U_WRITES * U_BYTES;
	uint8_t *src = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct mlx4emu_ctl ctl;
	struct ibv_wc wc[U_WRITES];
	struct ibv_mr *mr;
	bool failed = false;
	int n;

	if (src == MAP_FAILED || mlx4emu_ctl_load(&ctl))
		DIE("mmap, or the software device is not loaded");
	for (size_t i = 0; i < len; i++)
		src[i] = pattern((unsigned)i, 0x55);
	mr = ibv_reg_mr(s->pd, src, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		DIE("register the WRITE sources");
	pair_sync_byte(fd, 'p');	/* the server's adapter is paused */
	for (unsigned i = 0; i < U_WRITES; i++) {
		struct ibv_sge sge = { (uintptr_t)src + i * U_BYTES, U_BYTES, mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { s->peer.addr + U_TARGET + i * U_BYTES, s->peer.rkey },
		}, *bad;

		if (ibv_post_send(s->q.qp, &wr, &bad))
			DIE("post WRITE %u", i);
	}
	/* every WRITE executed (handed to the transport) before the unmap */
	CHECK(ctl.wait_idle(5000) == 0, "the adapter is not idle");
	CHECK(munmap(src + U_GONE * U_BYTES, U_BYTES) == 0, "munmap");
	pair_sync_byte(fd, 'u');	/* the server resumes */
	n = poll_n(s, wc, U_WRITES, 10);
	CHECK(n == U_WRITES, "%d of %d completions", n, U_WRITES);
	for (int i = 0; i < n; i++) {
		enum ibv_wc_status want = i == U_GONE ? IBV_WC_LOC_PROT_ERR : IBV_WC_WR_FLUSH_ERR;

		CHECK(wc[i].wr_id == (uint64_t)i, "completion %d is WR %llu", i,
		      (unsigned long long)wc[i].wr_id);
		if (i < U_GONE && !failed && wc[i].status == IBV_WC_SUCCESS)
			continue;
		failed = true;
		CHECK(wc[i].status == want, "WR %d: %s, not %s", i,
		      ibv_wc_status_str(wc[i].status), ibv_wc_status_str(want));
	}
	CHECK(ibv_poll_cq(s->q.cq, 1, wc) == 0, "a completion more");
	n = n < U_GONE ? n : U_GONE;
	for (int i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			n = i;
	pair_send(fd, &n, sizeof(n));	/* WRITEs that succeeded */
	CHECK(ibv_dereg_mr(mr) == 0, "dereg the WRITE sources");
	munmap(src, U_GONE * U_BYTES);
	munmap(src + (U_GONE + 1) * U_BYTES, len - (U_GONE + 1) * U_BYTES);
	printf("client unmapped: %d of %d WRITEs succeeded before the unmapped one\n", n,
	       U_GONE);
}

void unmapped_server(struct side *s, int fd)
{
	struct mlx4emu_ctl ctl;
	int n;

	if (mlx4emu_ctl_load(&ctl))
		DIE("the software device is not loaded");
	ctl.pause();
	pair_sync_byte(fd, 'p');
	pair_sync_byte(fd, 'u');
	ctl.resume();
	pair_recv(fd, &n, sizeof(n));
	for (int i = 0; i < n; i++) {
		const uint8_t *p = s->q.buf + U_TARGET + (size_t)i * U_BYTES;
		int bad = -1;

		for (unsigned j = 0; j < U_BYTES && bad < 0; j++)
			if (p[j] != pattern(i * U_BYTES + j, 0x55))
				bad = (int)j;
		CHECK(bad < 0, "WRITE %d: byte %d", i, bad);
	}
	printf("server unmapped: %d WRITEs checked\n", n);
}

void unmapped_read_client(struct side *s, int fd)
{
	struct { uint64_t addr; uint32_t rkey; } gone;
	struct ibv_wc wc;
	int n;

	pair_recv(fd, &gone, sizeof(gone));
	/* post() adds the peer's buffer address to the offset */
	post(s, 1, IBV_WR_RDMA_READ, READ_OFF, XFER, gone.addr - s->peer.addr, gone.rkey, 0, 0);
	n = poll_n(s, &wc, 1, 10);
	CHECK(n == 1 && wc.status == IBV_WC_REM_OP_ERR, "READ of unmapped memory: %s",
	      n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
	pair_sync_byte(fd, 'c');
}

void unmapped_read_server(struct side *s, int fd)
{
	struct { uint64_t addr; uint32_t rkey; } gone;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	uint8_t *p = mmap(NULL, XFER, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct ibv_mr *mr;

	if (p == MAP_FAILED)
		DIE("mmap");
	mr = ibv_reg_mr(s->pd, p, XFER, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		DIE("register the READ source");
	CHECK(munmap(p, XFER) == 0, "munmap");
	gone.addr = (uintptr_t)p;
	gone.rkey = mr->rkey;
	pair_send(fd, &gone, sizeof(gone));
	pair_sync_byte(fd, 'c');
	CHECK(ibv_query_qp(s->q.qp, &a, IBV_QP_STATE, &ia) == 0 && a.qp_state == IBV_QPS_ERR,
	      "responder QP in state %d after reading unmapped memory", a.qp_state);
	CHECK(ibv_dereg_mr(mr) == 0, "dereg the READ source");
}
