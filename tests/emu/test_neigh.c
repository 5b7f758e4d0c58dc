// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD address handles on an Ethernet port that reports "IP-based GIDs"
 * (port capability bit 26, as mlx4_ib reports for a ConnectX-3 RoCE
 * port): libmlx4 takes the destination MAC from
 * ibv_resolve_eth_l2_from_gid(), which the device answers (emu/os/
 * neigh.c).  Each DGID's MAC, read back from libmlx4's own address
 * handle (mlx4dv_ud_av_from_ah), is compared with the value worked out
 * by hand from the address rules: ::ffff:a.b.c.d -> 02:c9:a:b:c:d (this
 * adapter's own address -> its port MAC, set here with --mac), IPv4
 * multicast -> 01:00:5e + low 23 bits, link-local -> the EUI-64's MAC,
 * IPv6 multicast -> 33:33 + low 32 bits; a global IPv6 DGID and an SGID
 * index with no GID fail.  A UD SEND through an AH to the port's own
 * GID 1 arrives.  Run with --link-layer=eth --mac=02:11:22:33:44:55.
 */
#include "emu_test.h"

#include <arpa/inet.h>
#include <infiniband/mlx4dv.h>
#include "test_exit.h"

static const uint8_t own_mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

static struct ibv_ah *make_ah(struct emu_env *e, const char *dgid, uint8_t sgid_index)
{
	struct ibv_ah_attr a = {
		.port_num = e->port,
		.is_global = 1,
		.grh = { .sgid_index = sgid_index, .hop_limit = 64 },
	};

	assert_int_equal(inet_pton(AF_INET6, dgid, a.grh.dgid.raw), 1);
	return ibv_create_ah(e->pd, &a);
}

/* The MAC libmlx4 put in the AH for `dgid` from SGID index `sgid`. */
static void expect_mac(struct emu_env *e, const char *dgid, uint8_t sgid, const uint8_t mac[6])
{
	struct ibv_ah *ah = make_ah(e, dgid, sgid);
	struct mlx4dv_ud_av av;

	if (!ah)
		fail_msg("ibv_create_ah to %s from GID %u failed", dgid, sgid);
	assert_int_equal(mlx4dv_ud_av_from_ah(&av, ah), 0);
	if (memcmp(av.mac, mac, 6))
		fail_msg("%s: MAC %02x:%02x:%02x:%02x:%02x:%02x, expected "
			 "%02x:%02x:%02x:%02x:%02x:%02x", dgid, av.mac[0], av.mac[1], av.mac[2],
			 av.mac[3], av.mac[4], av.mac[5], mac[0], mac[1], mac[2], mac[3], mac[4],
			 mac[5]);
	/* no VLAN: port_pd bit 29 clear */
	assert_int_equal(be32toh(av.av.port_pd) & (1u << 29), 0);
	assert_int_equal(ibv_destroy_ah(ah), 0);
}

static void capability(void **state)
{
	struct emu_env *e = *state;

	assert_int_equal(e->port_attr.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_true(e->port_attr.port_cap_flags & IBV_PORT_IP_BASED_GIDS);
	assert_true(e->port_attr.port_cap_flags & IBV_PORT_CM_SUP);
}

static void unicast(void **state)
{
	struct emu_env *e = *state;
	union ibv_gid gid1;
	char own[INET6_ADDRSTRLEN];

	/* GID 1 is ::ffff:<port address>: this adapter, its own port MAC */
	assert_int_equal(ibv_query_gid(e->ctx, e->port, 1, &gid1), 0);
	assert_non_null(inet_ntop(AF_INET6, gid1.raw, own, sizeof(own)));
	expect_mac(e, own, 1, own_mac);
	expect_mac(e, own, 0, own_mac);
	/* other adapters */
	expect_mac(e, "::ffff:127.0.9.9", 1, (const uint8_t[6]){ 0x02, 0xc9, 0x7f, 0x00, 0x09, 0x09 });
	expect_mac(e, "::ffff:10.77.0.2", 1, (const uint8_t[6]){ 0x02, 0xc9, 0x0a, 0x4d, 0x00, 0x02 });
	/* link-local: the MAC inside the EUI-64, U/L bit flipped back */
	expect_mac(e, "fe80::211:22ff:fe33:4466", 0,
		   (const uint8_t[6]){ 0x00, 0x11, 0x22, 0x33, 0x44, 0x66 });
	expect_mac(e, "fe80::c9:7fff:fe00:909", 0,
		   (const uint8_t[6]){ 0x02, 0xc9, 0x7f, 0x00, 0x09, 0x09 });
}

static void multicast(void **state)
{
	struct emu_env *e = *state;
	static const uint8_t v4[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };

	expect_mac(e, "::ffff:239.1.2.3", 1, v4);
	expect_mac(e, "::ffff:239.129.2.3", 1, v4);	/* the low 23 bits only */
	expect_mac(e, "ff0e::ffff:239.1.2.3", 1, v4);
	expect_mac(e, "ff02::1:ff00:1234", 0, (const uint8_t[6]){ 0x33, 0x33, 0xff, 0x00, 0x12, 0x34 });
}

static void unresolvable(void **state)
{
	struct emu_env *e = *state;

	assert_null(make_ah(e, "2001:db8::1", 0));
	/* index 5 of the GID table holds no GID */
	assert_null(make_ah(e, "::ffff:127.0.9.9", 5));
}

/* A datagram to the port's own GID 1 takes the in-process path. */
static void send_to_gid1(void **state)
{
	struct emu_env *e = *state;
	struct emu_qp a, b;
	union ibv_gid gid1;
	char own[INET6_ADDRSTRLEN];
	struct ibv_ah *ah;
	struct ibv_sge sge;
	struct ibv_send_wr wr;
	struct ibv_wc wc;

	emu_qp_create(e, &a, IBV_QPT_UD, 16, 16, 64, 8192, NULL);
	emu_qp_create(e, &b, IBV_QPT_UD, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(e, a.qp, 0, 0);
	emu_qp_to_rts(e, b.qp, 0, 0);
	assert_int_equal(ibv_query_gid(e->ctx, e->port, 1, &gid1), 0);
	assert_non_null(inet_ntop(AF_INET6, gid1.raw, own, sizeof(own)));
	ah = make_ah(e, own, 1);
	assert_non_null(ah);
	emu_fill(a.buf, 64, 5);
	memset(b.buf, 0, 2048);
	emu_post_recv(b.qp, 5, b.buf, 2048, b.mr->lkey);
	sge = (struct ibv_sge){ (uintptr_t)a.buf, 64, a.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b.qp->qp_num;
	wr.wr.ud.remote_qkey = 0x11111111;
	assert_int_equal(emu_post_send(a.qp, &wr), 0);
	assert_int_equal(emu_poll_one(a.scq, IBV_WC_SUCCESS).wr_id, 77);
	wc = emu_poll_one(b.rcq, IBV_WC_SUCCESS);
	assert_int_equal(wc.byte_len, 40 + 64);
	assert_true(wc.wc_flags & IBV_WC_GRH);
	assert_memory_equal(b.buf + 40, a.buf, 64);
	assert_int_equal(ibv_destroy_ah(ah), 0);
	emu_qp_destroy(&b);
	emu_qp_destroy(&a);
}

static int setup(void **state)
{
	struct emu_env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	emu_env_open(e, 1);
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	emu_env_close(*state);
	free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(capability),
		cmocka_unit_test(unicast),
		cmocka_unit_test(multicast),
		cmocka_unit_test(unresolvable),
		cmocka_unit_test(send_to_gid1),
	};

	t_run_group_tests(tests, setup, teardown);
	return t_exit();
}
