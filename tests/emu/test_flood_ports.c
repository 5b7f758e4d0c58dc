// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The segment flood between the two Ethernet ports of one adapter
 * (emu/transport/flood.c): a broadcast frame a raw packet QP sends on
 * port 1 reaches a raw packet QP of port 2
 *
 *   test_emu_flood_ports 1 segment   once, through the wire, when the
 *                                    adapter is on a wire segment
 *   test_emu_flood_ports 1 cable     once, down the cable, with
 *                                    --cross-cable (never a second copy
 *                                    through the wire)
 *   test_emu_flood_ports 0 none      never, on no segment and no cable
 *                                    (the flood sends nothing, and a
 *                                    port without a segment takes no
 *                                    flood: wire/vxlan.c)
 *
 * (the first argument is the number of copies port 2 must receive, the
 * second names the case in the output).  Each copy is compared byte for
 * byte with the frame sent; after the expected copies the receive CQ must
 * stay empty while the device is idle and 100 ms more pass, time enough
 * for a frame in the VXLAN tunnel on loopback.
 */
#include "emu_test.h"
#include "raw_frame.h"
#include "test_exit.h"

#include <stdio.h>
#include <unistd.h>

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static int copies = -1;

struct ports {
	struct emu_env p1, p2;
	struct emu_qp tx, rx;
};

static int setup(void **state)
{
	struct ports *p = calloc(1, sizeof(*p));

	emu_env_open(&p->p1, 1);
	emu_env_open(&p->p2, 2);
	if (p->p1.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET ||
	    p->p2.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		print_message("needs --ports=2 --link-layer=eth\n");
		return -1;
	}
	emu_qp_create(&p->p1, &p->tx, IBV_QPT_RAW_PACKET, 16, 16, 64, 1 << 16, NULL);
	emu_qp_create(&p->p2, &p->rx, IBV_QPT_RAW_PACKET, 16, 16, 64, 1 << 16, NULL);
	emu_qp_to_rts(&p->p1, p->tx.qp, 0, 0);
	emu_qp_to_rts(&p->p2, p->rx.qp, 0, 0);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	struct ports *p = *state;

	emu_qp_destroy(&p->tx);
	emu_qp_destroy(&p->rx);
	emu_env_close(&p->p2);
	emu_env_close(&p->p1);
	free(p);
	return 0;
}

static void test_broadcast_to_other_port(void **state)
{
	struct ports *p = *state;
	static const uint8_t s[4] = { 10, 0, 0, 1 }, d[4] = { 10, 0, 0, 255 };
	size_t len = raw_frame_ipv4(p->tx.buf, bcast, s, d, 4000, 4001, 17, 200, 1);
	struct ibv_wc wc[4];

	for (unsigned i = 0; i < 4; i++)
		emu_post_recv(p->rx.qp, i, p->rx.buf + i * 2048, 2048, p->rx.mr->lkey);
	raw_send(&p->tx, len, 0);
	if (copies > 0)
		assert_int_equal(emu_poll(p->rx.rcq, wc, copies), copies);
	for (int i = 0; i < copies; i++) {
		assert_int_equal(wc[i].status, IBV_WC_SUCCESS);
		assert_int_equal(wc[i].byte_len, len);
		assert_memory_equal(p->rx.buf + wc[i].wr_id * 2048, p->tx.buf, len);
	}
	emu_idle(&p->p1);
	usleep(100 * 1000);
	emu_assert_cq_empty(&p->p2, p->rx.rcq);
	/* the sender never hears its own frame */
	emu_assert_cq_empty(&p->p1, p->tx.rcq);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_broadcast_to_other_port, setup, teardown),
	};

	if (argc != 3 || (strcmp(argv[1], "0") && strcmp(argv[1], "1"))) {
		fprintf(stderr, "usage: %s 0|1 CASE\n", argv[0]);
		return 2;
	}
	copies = atoi(argv[1]);
	t_run_group_tests_name(argv[2], tests, NULL, NULL);
	return t_exit();
}
