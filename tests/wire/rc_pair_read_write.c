// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* rc_pair -m read_write: a READ and a WRITE of the same bytes in one
 * batch (see rc_pair.c). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "rc_pair.h"

/* -m read_write: the 1 KiB both WRs name, in the server's buffer, and
 * where the client READs it to and WRITEs it from */
#define RW_BYTES 1024
#define RW_TARGET 0x90000
#define RW_READ_DST 0x91000
#define RW_WRITE_SRC 0x92000

void read_write_client(struct side *s, int fd)
{
	const uint8_t *got = s->q.buf + RW_READ_DST;
	struct mlx4emu_ctl ctl;
	struct ibv_wc wc[2];
	double t0, dt;
	int n;

	if (mlx4emu_ctl_load(&ctl))
		DIE("the software device is not loaded");
	fill(s->q.buf + RW_WRITE_SRC, RW_BYTES, 0x66);
	pair_sync_byte(fd, 'p');	/* the server's adapter is paused */
	t0 = now_s();
	post(s, 1, IBV_WR_RDMA_READ, RW_READ_DST, RW_BYTES, RW_TARGET, s->peer.rkey, 0, 0);
	post(s, 2, IBV_WR_RDMA_WRITE, RW_WRITE_SRC, RW_BYTES, RW_TARGET, s->peer.rkey, 0, 0);
	/* both requests are on the wire before the server takes them */
	CHECK(ctl.wait_idle(5000) == 0, "the adapter is not idle");
	pair_sync_byte(fd, 'u');
	n = poll_n(s, wc, 2, 15);
	dt = now_s() - t0;
	CHECK(n == 2, "%d of 2 completions", n);
	CHECK(n < 1 || (wc[0].wr_id == 1 && wc[0].status == IBV_WC_SUCCESS),
	      "READ: %s (its response lost on the way?)", ibv_wc_status_str(wc[0].status));
	CHECK(n < 2 || (wc[1].wr_id == 2 && wc[1].status == IBV_WC_SUCCESS), "WRITE: %s",
	      ibv_wc_status_str(wc[1].status));
	CHECK(dt < retry_exc_s(), "READ and WRITE took %.3f s, a local ACK timeout is %.3f s",
	      dt, retry_exc_s());
	CHECK(mismatch(got, RW_BYTES, 0x33) < 0 || mismatch(got, RW_BYTES, 0x66) < 0,
	      "READ returned neither the old bytes nor the WRITE's");
	printf("client read_write: done in %.3f s, READ returned %s bytes\n", dt,
	       mismatch(got, RW_BYTES, 0x33) < 0 ? "the old" :
	       mismatch(got, RW_BYTES, 0x66) < 0 ? "the WRITE's" : "other");
	pair_sync_byte(fd, 'c');
}

void read_write_server(struct side *s, int fd)
{
	struct mlx4emu_ctl ctl;
	int bad;

	if (mlx4emu_ctl_load(&ctl))
		DIE("the software device is not loaded");
	fill(s->q.buf + RW_TARGET, RW_BYTES, 0x33);
	ctl.pause();
	pair_sync_byte(fd, 'p');
	pair_sync_byte(fd, 'u');
	ctl.resume();
	pair_sync_byte(fd, 'c');
	bad = mismatch(s->q.buf + RW_TARGET, RW_BYTES, 0x66);
	CHECK(bad < 0, "WRITE: byte %d", bad);
}
