// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Flow steering on an Ethernet port (run with --link-layer=eth): four raw
 * packet QPs with rules on the Ethernet (destination MAC, VLAN tag),
 * IPv4 (addresses under masks) and TCP/UDP (ports under masks) layers;
 * every frame reaches exactly the QP of the best matching rule (lowest
 * priority value, the older rule among equals), the default rules take
 * what no rule steers, identical rules share their frames, a sniffer
 * copies everything.  Specs mlx4 does not steer by fail with the errno
 * mlx4_ib returns; rules go on UD and raw packet QPs only, and hold their
 * QP (its destroy is EBUSY) while they exist.
 */
#include "emu_test.h"
#include "raw_frame.h"

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include "test_exit.h"

#define NRX 4

struct flows {
	struct emu_env e;
	struct emu_qp tx, rx[NRX];
	uint8_t mac[6];
};

/* A rule under construction: the attribute and its specs, back to back
 * (specs start right after the 20-byte attribute, as DPDK lays them). */
struct rule {
	union {
		struct ibv_flow_attr attr;
		uint8_t bytes[512];
	};
};

static const uint8_t X[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x30 };
static const uint8_t Y[6] = { 0x02, 0x00, 0x5e, 0x10, 0x20, 0x31 };
static const uint8_t FULL[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t S[4] = { 10, 1, 2, 3 }, D[4] = { 10, 9, 8, 7 };

static int setup(void **state)
{
	struct flows *t = calloc(1, sizeof(*t));

	emu_env_open(&t->e, 1);
	if (t->e.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		print_message("flow tests need --link-layer=eth\n");
		return -1;
	}
	raw_port_mac(&t->e, 1, t->mac);
	emu_qp_create(&t->e, &t->tx, IBV_QPT_RAW_PACKET, 16, 16, 64, 8192, NULL);
	emu_qp_to_rts(&t->e, t->tx.qp, 0, 0);
	for (int i = 0; i < NRX; i++) {
		emu_qp_create(&t->e, &t->rx[i], IBV_QPT_RAW_PACKET, 4, 16, 64, 8192, NULL);
		emu_qp_to_rts(&t->e, t->rx[i].qp, 0, 0);
		emu_post_recv(t->rx[i].qp, (uint64_t)i, t->rx[i].buf, 2048, t->rx[i].mr->lkey);
	}
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct flows *t = *state;

	emu_qp_destroy(&t->tx);
	for (int i = 0; i < NRX; i++)
		emu_qp_destroy(&t->rx[i]);
	emu_env_close(&t->e);
	free(t);
	return 0;
}

static void rule_init(struct rule *r, enum ibv_flow_attr_type type, uint16_t prio)
{
	memset(r, 0, sizeof(*r));
	r->attr.type = type;
	r->attr.size = sizeof(r->attr);
	r->attr.priority = prio;
	r->attr.port = 1;
}

static void *rule_add(struct rule *r, size_t size)
{
	void *spec = (uint8_t *)&r->attr + r->attr.size;

	r->attr.size = (uint16_t)(r->attr.size + size);
	r->attr.num_of_specs++;
	return spec;
}

static void rule_eth(struct rule *r, const uint8_t mac[6], const uint8_t mask[6],
		     uint16_t vlan, uint16_t vlan_mask)
{
	struct ibv_flow_spec_eth *s = rule_add(r, sizeof(*s));

	s->type = IBV_FLOW_SPEC_ETH;
	s->size = sizeof(*s);
	memcpy(s->val.dst_mac, mac, 6);
	memcpy(s->mask.dst_mac, mask, 6);
	s->val.vlan_tag = htons(vlan);
	s->mask.vlan_tag = htons(vlan_mask);
}

static void rule_ipv4(struct rule *r, const uint8_t src[4], uint32_t src_mask,
		      const uint8_t dst[4], uint32_t dst_mask)
{
	struct ibv_flow_spec_ipv4 *s = rule_add(r, sizeof(*s));

	s->type = IBV_FLOW_SPEC_IPV4;
	s->size = sizeof(*s);
	memcpy(&s->val.src_ip, src, 4);
	memcpy(&s->val.dst_ip, dst, 4);
	s->mask.src_ip = htonl(src_mask);
	s->mask.dst_ip = htonl(dst_mask);
}

static void rule_l4(struct rule *r, enum ibv_flow_spec_type type, uint16_t sport,
		    uint16_t sport_mask, uint16_t dport, uint16_t dport_mask)
{
	struct ibv_flow_spec_tcp_udp *s = rule_add(r, sizeof(*s));

	s->type = type;
	s->size = sizeof(*s);
	s->val.src_port = htons(sport);
	s->mask.src_port = htons(sport_mask);
	s->val.dst_port = htons(dport);
	s->mask.dst_port = htons(dport_mask);
}

static struct ibv_flow *rule_create(struct ibv_qp *qp, struct rule *r)
{
	struct ibv_flow *f = ibv_create_flow(qp, &r->attr);

	if (!f)
		print_message("ibv_create_flow: %s\n", strerror(errno));
	assert_non_null(f);
	return f;
}

/* The errno of a rule the device refuses. */
static int rule_refused(struct ibv_qp *qp, struct rule *r)
{
	struct ibv_flow *f;

	errno = 0;
	f = ibv_create_flow(qp, &r->attr);
	if (f) {
		ibv_destroy_flow(f);
		return 0;
	}
	return errno;
}

/* A NORMAL rule at prio on the destination MAC exactly; more specs may
 * follow. */
static void rule_dmac(struct rule *r, const uint8_t mac[6], uint16_t prio)
{
	rule_init(r, IBV_FLOW_ATTR_NORMAL, prio);
	rule_eth(r, mac, FULL, 0, 0);
}

/* A rule to rx[i] at prio on the destination MAC alone. */
static struct ibv_flow *rule_mac(struct flows *t, int i, const uint8_t mac[6], uint16_t prio)
{
	struct rule r;

	rule_dmac(&r, mac, prio);
	return rule_create(t->rx[i].qp, &r);
}

/* The ALL_DEFAULT rule to rx[i]: the frames no NORMAL rule takes. */
static struct ibv_flow *rule_all_default(struct flows *t, int i)
{
	struct rule r;

	rule_init(&r, IBV_FLOW_ATTR_ALL_DEFAULT, 0);
	return rule_create(t->rx[i].qp, &r);
}

/*
 * Sends the frame in t->tx.buf and returns the set of receivers (bit i =
 * rx[i]) that got it, each whole; their receive WQEs are posted again.
 */
static unsigned sent_to(struct flows *t, size_t len)
{
	unsigned got = 0;

	raw_send(&t->tx, len, 0);
	emu_idle(&t->e);
	for (int i = 0; i < NRX; i++) {
		struct ibv_wc wc;

		if (ibv_poll_cq(t->rx[i].rcq, 1, &wc) != 1)
			continue;
		assert_int_equal(wc.status, IBV_WC_SUCCESS);
		assert_int_equal(wc.byte_len, len);
		assert_memory_equal(t->rx[i].buf, t->tx.buf, len);
		assert_int_equal(ibv_poll_cq(t->rx[i].rcq, 1, &wc), 0);
		got |= 1u << i;
		emu_post_recv(t->rx[i].qp, (uint64_t)i, t->rx[i].buf, 2048, t->rx[i].mr->lkey);
	}
	return got;
}

static size_t udp_to(struct flows *t, const uint8_t mac[6], const uint8_t dst[4],
		     uint16_t sport, uint16_t dport)
{
	return raw_frame_ipv4(t->tx.buf, mac, S, dst, sport, dport, 17, 32, 1);
}

/* sent_to() of an IPv4 frame X, S -> D of protocol proto (6 TCP, 17 UDP)
 * with these ports and 8 bytes of payload */
static unsigned ipv4_sent_to(struct flows *t, uint16_t sport, uint16_t dport, uint8_t proto)
{
	return sent_to(t, raw_frame_ipv4(t->tx.buf, X, S, D, sport, dport, proto, 8, 1));
}

/* The best-priority match takes the frame, and only it; not the most
 * specific rule: priority decides. */
static void test_priority(void **state)
{
	struct flows *t = *state;
	struct ibv_flow *f[4];
	struct rule r;

	f[0] = rule_mac(t, 0, X, 2);
	rule_dmac(&r, X, 1);
	rule_ipv4(&r, S, 0, D, 0xffffffff);
	f[1] = rule_create(t->rx[1].qp, &r);
	rule_dmac(&r, X, 0);
	rule_ipv4(&r, S, 0, D, 0xffffffff);
	rule_l4(&r, IBV_FLOW_SPEC_UDP, 0, 0, 4791, 0xffff);
	f[2] = rule_create(t->rx[2].qp, &r);
	f[3] = rule_all_default(t, 3);

	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 4791)), 1u << 2);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 53)), 1u << 1);
	assert_int_equal(sent_to(t, udp_to(t, X, S, 1, 4791)), 1u << 0);
	/* no normal rule: the all-default rule, whatever its priority */
	assert_int_equal(sent_to(t, udp_to(t, Y, D, 1, 4791)), 1u << 3);
	/* the UDP rule moved below the IPv4 one no longer gets its frames */
	assert_int_equal(ibv_destroy_flow(f[2]), 0);
	r.attr.priority = 3;
	f[2] = rule_create(t->rx[2].qp, &r);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 4791)), 1u << 1);
	/* and without the IPv4 rule, the MAC rule (prio 2) beats it (prio 3) */
	assert_int_equal(ibv_destroy_flow(f[1]), 0);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 4791)), 1u << 0);
	for (int i = 0; i < 4; i++)
		if (i != 1)
			assert_int_equal(ibv_destroy_flow(f[i]), 0);
	/* no rule left: nobody takes a frame for X */
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 4791)), 0);
}

/* Equal priorities: the older rule wins; identical rules share frames. */
static void test_equal_priority(void **state)
{
	struct flows *t = *state;
	struct ibv_flow *older, *newer, *same[2];
	struct rule r;

	older = rule_mac(t, 0, X, 5);
	rule_dmac(&r, X, 5);
	rule_l4(&r, IBV_FLOW_SPEC_UDP, 0, 0, 7, 0xffff);
	newer = rule_create(t->rx[1].qp, &r);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 7)), 1u << 0);
	assert_int_equal(ibv_destroy_flow(older), 0);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 7)), 1u << 1);
	assert_int_equal(ibv_destroy_flow(newer), 0);
	/* the same rule from two QPs: one steering entry, a copy for each */
	same[0] = rule_mac(t, 2, Y, 0);
	same[1] = rule_mac(t, 3, Y, 0);
	assert_int_equal(sent_to(t, udp_to(t, Y, D, 1, 7)), 3u << 2);
	assert_int_equal(ibv_destroy_flow(same[0]), 0);
	assert_int_equal(sent_to(t, udp_to(t, Y, D, 1, 7)), 1u << 3);
	assert_int_equal(ibv_destroy_flow(same[1]), 0);
}

/* The VLAN tag under its mask; an untagged frame never matches it. */
static void test_vlan(void **state)
{
	struct flows *t = *state;
	struct ibv_flow *f[3];
	struct rule r;

	rule_init(&r, IBV_FLOW_ATTR_NORMAL, 0);
	rule_eth(&r, X, FULL, 100, 0x0fff);
	f[0] = rule_create(t->rx[0].qp, &r);
	rule_init(&r, IBV_FLOW_ATTR_NORMAL, 0);
	rule_eth(&r, X, FULL, 0x2000, 0xe000);		/* PCP 1, any VID */
	f[1] = rule_create(t->rx[1].qp, &r);
	f[2] = rule_mac(t, 2, X, 1);

	assert_int_equal(sent_to(t, raw_frame_tag(t->tx.buf, udp_to(t, X, D, 1, 2),
						  0x6000 | 100)), 1u << 0);
	/* PCP 1 and VID 100 match both: the older rule */
	assert_int_equal(sent_to(t, raw_frame_tag(t->tx.buf, udp_to(t, X, D, 1, 2),
						  0x2000 | 100)), 1u << 0);
	assert_int_equal(sent_to(t, raw_frame_tag(t->tx.buf, udp_to(t, X, D, 1, 2),
						  0x2000 | 200)), 1u << 1);
	assert_int_equal(sent_to(t, raw_frame_tag(t->tx.buf, udp_to(t, X, D, 1, 2),
						  0x6000 | 200)), 1u << 2);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 2)), 1u << 2);
	/* the IPv4 and UDP headers behind the tag are still found */
	assert_int_equal(ibv_destroy_flow(f[2]), 0);
	rule_dmac(&r, X, 1);
	rule_l4(&r, IBV_FLOW_SPEC_UDP, 0, 0, 99, 0xffff);
	f[2] = rule_create(t->rx[2].qp, &r);
	assert_int_equal(sent_to(t, raw_frame_tag(t->tx.buf, udp_to(t, X, D, 1, 99),
						  0x6000 | 300)), 1u << 2);
	assert_int_equal(sent_to(t, raw_frame_tag(t->tx.buf, udp_to(t, X, D, 1, 98),
						  0x6000 | 300)), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ibv_destroy_flow(f[i]), 0);
}

/* IPv4 addresses under masks; an IPv6 frame is not an IPv4 one. */
static void test_ipv4(void **state)
{
	struct flows *t = *state;
	static const uint8_t net[4] = { 10, 1, 0, 0 }, any[4] = { 0 };
	static const uint8_t s6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 1, 2, 3 };
	struct ibv_flow *f[3];
	struct rule r;

	rule_dmac(&r, X, 0);
	rule_ipv4(&r, net, 0xffff0000, any, 0);
	f[0] = rule_create(t->rx[0].qp, &r);
	rule_dmac(&r, X, 1);
	rule_ipv4(&r, any, 0, D, 0xffffff00);
	f[1] = rule_create(t->rx[1].qp, &r);
	f[2] = rule_all_default(t, 3);

	/* S = 10.1.2.3 is in 10.1/16 */
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 2)), 1u << 0);
	/* source 10.2.0.1 is not; destination 10.9.8.0/24 is */
	assert_int_equal(sent_to(t, raw_frame_ipv4(t->tx.buf, X, (const uint8_t[]){ 10, 2, 0, 1 },
						   (const uint8_t[]){ 10, 9, 8, 200 }, 1, 2, 6, 8, 1)),
			 1u << 1);
	assert_int_equal(sent_to(t, raw_frame_ipv4(t->tx.buf, X, (const uint8_t[]){ 10, 2, 0, 1 },
						   (const uint8_t[]){ 10, 9, 9, 200 }, 1, 2, 6, 8, 1)),
			 1u << 3);
	assert_int_equal(sent_to(t, raw_frame_ipv6(t->tx.buf, X, s6, s6, 1, 2, 17, 8)), 1u << 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ibv_destroy_flow(f[i]), 0);
}

/* TCP and UDP ports under masks: the spec type names the protocol. */
static void test_tcp_udp(void **state)
{
	struct flows *t = *state;
	struct ibv_flow *f[4];
	struct rule r;

	rule_dmac(&r, X, 0);
	rule_l4(&r, IBV_FLOW_SPEC_TCP, 0, 0, 80, 0xffff);
	f[0] = rule_create(t->rx[0].qp, &r);
	rule_dmac(&r, X, 0);
	rule_l4(&r, IBV_FLOW_SPEC_UDP, 0, 0, 80, 0xffff);
	f[1] = rule_create(t->rx[1].qp, &r);
	rule_dmac(&r, X, 0);
	rule_ipv4(&r, S, 0xffffffff, D, 0xffffffff);
	rule_l4(&r, IBV_FLOW_SPEC_UDP, 0x0300, 0xff00, 0, 0);
	f[2] = rule_create(t->rx[2].qp, &r);
	f[3] = rule_all_default(t, 3);

	assert_int_equal(ipv4_sent_to(t, 5, 80, 6), 1u << 0);
	assert_int_equal(ipv4_sent_to(t, 5, 80, 17), 1u << 1);
	assert_int_equal(ipv4_sent_to(t, 5, 81, 6), 1u << 3);
	assert_int_equal(ipv4_sent_to(t, 0x03a1, 81, 17), 1u << 2);
	assert_int_equal(ipv4_sent_to(t, 0x04a1, 81, 17), 1u << 3);
	/* a TCP frame over IPv6 matches a rule with no IPv4 spec */
	assert_int_equal(sent_to(t, raw_frame_ipv6(t->tx.buf, X, (const uint8_t[16]){ 0xfd },
						   (const uint8_t[16]){ 0xfd, 1 }, 5, 80, 6, 8)),
			 1u << 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ibv_destroy_flow(f[i]), 0);
}

/* Default rules: multicast first to the multicast default; a sniffer
 * gets its copy besides; a QP left in RESET (DPDK's drop queue) takes
 * its frames and drops them. */
static void test_defaults_sniffer_drop(void **state)
{
	struct flows *t = *state;
	static const uint8_t mc[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	struct ibv_flow *f[5];
	struct emu_qp drop;
	struct rule r;

	f[0] = rule_all_default(t, 0);
	rule_init(&r, IBV_FLOW_ATTR_MC_DEFAULT, 7);
	f[1] = rule_create(t->rx[1].qp, &r);
	rule_init(&r, IBV_FLOW_ATTR_SNIFFER, 0);
	f[2] = rule_create(t->rx[3].qp, &r);

	assert_int_equal(sent_to(t, udp_to(t, mc, D, 1, 2)), 1u << 1 | 1u << 3);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 2)), 1u << 0 | 1u << 3);
	f[3] = rule_mac(t, 2, mc, 0xfff);
	assert_int_equal(sent_to(t, udp_to(t, mc, D, 1, 2)), 1u << 2 | 1u << 3);

	emu_qp_create(&t->e, &drop, IBV_QPT_RAW_PACKET, 1, 16, 16, 4096, NULL);
	emu_post_recv(drop.qp, 9, drop.buf, 2048, drop.mr->lkey);
	rule_dmac(&r, mc, 0);
	f[4] = rule_create(drop.qp, &r);
	assert_int_equal(sent_to(t, udp_to(t, mc, D, 1, 2)), 1u << 3);
	emu_assert_cq_empty(&t->e, drop.rcq);
	for (int i = 0; i < 5; i++)
		assert_int_equal(ibv_destroy_flow(f[i]), 0);
	emu_qp_destroy(&drop);
}

/* What mlx4_ib refuses, and what it takes but does not match on. */
static void test_refused(void **state)
{
	struct flows *t = *state;
	struct ibv_qp *qp = t->rx[0].qp;
	struct ibv_flow_spec_ipv6 *v6;
	struct ibv_flow_spec_ipv4_ext *v4x;
	struct ibv_flow_spec_tunnel *vx;
	struct ibv_flow_spec_eth *eth;
	struct ibv_flow *f;
	struct rule r;

	rule_dmac(&r, X, 0);
	v6 = rule_add(&r, sizeof(*v6));
	v6->type = IBV_FLOW_SPEC_IPV6;
	v6->size = sizeof(*v6);
	v6->mask.dst_ip[0] = 0xff;
	assert_int_equal(rule_refused(qp, &r), EINVAL);

	rule_dmac(&r, X, 0);
	v4x = rule_add(&r, sizeof(*v4x));
	v4x->type = IBV_FLOW_SPEC_IPV4_EXT;
	v4x->size = sizeof(*v4x);
	v4x->val.proto = 17;
	v4x->mask.proto = 0xff;
	assert_int_equal(rule_refused(qp, &r), EINVAL);

	rule_dmac(&r, X, 0);
	vx = rule_add(&r, sizeof(*vx));
	vx->type = IBV_FLOW_SPEC_VXLAN_TUNNEL;
	vx->size = sizeof(*vx);
	vx->mask.tunnel_id = 0xffffff;
	assert_int_equal(rule_refused(qp, &r), EINVAL);

	rule_dmac(&r, X, 0x1000);
	assert_int_equal(rule_refused(qp, &r), EINVAL);
	r.attr.priority = 0;
	r.attr.port = 2;
	assert_int_equal(rule_refused(qp, &r), EINVAL);
	r.attr.port = 1;
	r.attr.flags = IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
	assert_int_equal(rule_refused(qp, &r), EOPNOTSUPP);
	r.attr.flags = IBV_FLOW_ATTR_FLAGS_EGRESS;
	assert_int_equal(rule_refused(qp, &r), EOPNOTSUPP);
	r.attr.flags = 0;
	r.attr.type = IBV_FLOW_ATTR_SNIFFER + 1;
	assert_int_equal(rule_refused(qp, &r), EINVAL);

	/* the ether type and the source MAC are taken and not matched: this
	 * "IPv4 only" rule takes an IPv6 frame */
	rule_dmac(&r, X, 0);
	eth = (struct ibv_flow_spec_eth *)((uint8_t *)&r.attr + sizeof(r.attr));
	eth->val.ether_type = htons(0x0800);
	eth->mask.ether_type = 0xffff;
	memset(eth->mask.src_mac, 0xff, 6);
	f = rule_create(qp, &r);
	assert_int_equal(sent_to(t, raw_frame_ipv6(t->tx.buf, X, (const uint8_t[16]){ 0xfd },
						   (const uint8_t[16]){ 0xfd, 1 }, 5, 80, 17, 8)),
			 1u << 0);
	assert_int_equal(ibv_destroy_flow(f), 0);
}

/*
 * The QPs a rule may steer to (ib_uverbs_ex_create_flow: UD and raw
 * packet, EINVAL for the rest), and a QP with rules is in use: destroying
 * it is EBUSY (ib_destroy_qp_user, qp->usecnt) until its rules are gone.
 * A UD QP's rule takes its frames from a worse raw rule; a UD QP receives
 * datagrams, not frames, so they are dropped.
 */
static void test_qp_types_and_busy_destroy(void **state)
{
	struct flows *t = *state;
	struct ibv_flow *ud_rule, *raw_rule, *worse;
	struct emu_qp ud, rc, raw;
	struct rule r;

	emu_qp_create(&t->e, &ud, IBV_QPT_UD, 4, 4, 16, 4096, NULL);
	emu_qp_create(&t->e, &rc, IBV_QPT_RC, 4, 4, 16, 4096, NULL);
	emu_qp_create(&t->e, &raw, IBV_QPT_RAW_PACKET, 4, 4, 16, 4096, NULL);
	emu_qp_to_rts(&t->e, raw.qp, 0, 0);
	emu_post_recv(raw.qp, 7, raw.buf, 2048, raw.mr->lkey);
	rule_init(&r, IBV_FLOW_ATTR_NORMAL, 0);
	rule_eth(&r, X, FULL, 0, 0);
	assert_int_equal(rule_refused(rc.qp, &r), EINVAL);
	ud_rule = rule_create(ud.qp, &r);
	worse = rule_mac(t, 0, X, 1);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 2)), 0);
	assert_int_equal(ibv_destroy_qp(ud.qp), EBUSY);
	assert_int_equal(ibv_destroy_flow(ud_rule), 0);
	assert_int_equal(sent_to(t, udp_to(t, X, D, 1, 2)), 1u << 0);

	/* a raw QP with a rule keeps it, and its frames, after a refused
	 * destroy */
	rule_init(&r, IBV_FLOW_ATTR_NORMAL, 0);
	rule_eth(&r, Y, FULL, 0, 0);
	raw_rule = rule_create(raw.qp, &r);
	assert_int_equal(ibv_destroy_qp(raw.qp), EBUSY);
	raw_send(&t->tx, udp_to(t, Y, D, 1, 2), 0);
	assert_int_equal(emu_poll_one(raw.rcq, IBV_WC_SUCCESS).wr_id, 7);
	assert_int_equal(ibv_destroy_flow(raw_rule), 0);
	assert_int_equal(ibv_destroy_flow(worse), 0);
	emu_qp_destroy(&raw);
	emu_qp_destroy(&rc);
	emu_qp_destroy(&ud);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_priority, setup, teardown),
		cmocka_unit_test_setup_teardown(test_equal_priority, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vlan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv4, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tcp_udp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_defaults_sniffer_drop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_qp_types_and_busy_destroy, setup,
						teardown),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
