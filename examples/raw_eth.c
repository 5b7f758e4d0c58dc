// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * raw_eth - raw Ethernet frames between two raw packet QPs.
 *
 * Two RAW_PACKET QPs on one Ethernet port, each with a locally
 * administered MAC address steered to it (ibv_create_flow), send each
 * other IPv4/UDP frames through <infiniband/mlx4dv.h>; the adapter loops
 * them back by destination MAC (the header copies the destination MAC
 * into the control segment). The sender leaves the IPv4 header checksum
 * at 0 and puts only the pseudo-header sum in the UDP checksum, and asks
 * the device to complete both (IBV_SEND_IP_CSUM); with --vlan the device
 * inserts an 802.1Q tag. Every eighth frame instead goes without offload
 * and with a deliberately wrong IPv4 header checksum.
 *
 * The receiver checks each frame: length, addresses, EtherType and VLAN
 * (in the frame, or reported stripped by the CQE), both checksums
 * recomputed in software, the payload pattern, and the CQE's receive
 * checksum status: IPv4 with good IP and UDP checksums for offloaded
 * frames, a bad IP header checksum for the others.
 *
 * Needs an Ethernet port whose frames loop back (no cable to the
 * adapter's other port); on the software device:
 *   mlx4emu-run --link-layer=eth raw_eth
 * Exit status: 0 when every frame verified, 1 on any error, 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx4dv.h>

#include "device.h"
#include "endpoint.h"
#include "latency.h"
#include "options.h"
#include "payload.h"
#include "watchdog.h"

#define ETH_HDR		14
#define VLAN_TAG	4
#define IPV4_HDR	20
#define UDP_HDR		8
#define HEADERS		(ETH_HDR + IPV4_HDR + UDP_HDR)
#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_VLAN	0x8100
#define IPPROTO_UDP_NUM	17
#define BAD_CSUM_EVERY	8
#define SEND_DEPTH	64
#define CQ_BATCH	16

static const struct ex_program program = {
	.name = "raw_eth",
	.summary = "Raw Ethernet (IPv4/UDP) frames between two raw packet QPs through mlx4dv.h: checksum offload, VLAN insert, receive checksum status.",
	.extras = EX_OPT_RX_DEPTH | EX_OPT_VLAN,
	.default_size = 256,
	.min_size = 8,
	.max_size = 1500 - IPV4_HDR - UDP_HDR,
	.default_iters = 1000,
	.default_rx_depth = 64,
};

/* One station: a raw packet QP, its MAC, IP address and handles. */
struct eth_side {
	const char		*name;
	struct ex_endpoint	ep;
	struct mlx4dv_qp_rings	rings;
	bool			rings_ready;
	struct ibv_flow		*flow;
	uint8_t			mac[6];
	uint32_t		ip;		/* host order */
	uint32_t		rx_depth;
	uint32_t		tx_slots;
	size_t			rx_slot_bytes;
	uint64_t		sent, send_completed, received;
	uint64_t		csum_ok_frames, csum_bad_frames, vlan_frames;
};

struct eth_test {
	struct ex_device	*dev;
	size_t			size;		/* UDP payload bytes */
	uint64_t		iters;
	int			vlan;		/* -1: none */
	bool			cqe_csum_valid;	/* device offers RX checksum */
};

static size_t frame_bytes(const struct eth_test *t)
{
	return HEADERS + t->size;
}

static uint8_t *tx_slot(struct eth_side *s, uint64_t i)
{
	return s->ep.buf + (size_t)(i % s->tx_slots) * 2048;
}

static uint8_t *rx_slot(struct eth_side *s, uint32_t k)
{
	return s->ep.buf + (size_t)s->tx_slots * 2048 + (size_t)k * s->rx_slot_bytes;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* One's-complement sum of big-endian 16-bit words (RFC 1071). */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The UDP pseudo-header sum (source, destination, protocol, length). */
static uint32_t udp_pseudo_sum(const uint8_t *ip, uint16_t udp_len)
{
	uint32_t sum = csum_add(0, ip + 12, 8);

	return sum + IPPROTO_UDP_NUM + udp_len;
}

static bool ipv4_header_ok(const uint8_t *ip)
{
	return csum_fold(csum_add(0, ip, IPV4_HDR)) == 0xffff;
}

static bool udp_ok(const uint8_t *ip, const uint8_t *udp, uint16_t udp_len)
{
	uint32_t sum = udp_pseudo_sum(ip, udp_len);

	return csum_fold(csum_add(sum, udp, udp_len)) == 0xffff;
}

/*
 * Frame i from src to dst. Offloaded frames carry IP checksum 0 and the
 * UDP pseudo-header sum, for the device to complete; the others carry a
 * full UDP checksum and a wrong IP header checksum.
 */
static void build_frame(const struct eth_test *t, uint8_t *f, uint64_t i,
			const struct eth_side *src, const struct eth_side *dst,
			bool offload)
{
	uint8_t *ip = f + ETH_HDR, *udp = ip + IPV4_HDR;
	uint16_t udp_len = (uint16_t)(UDP_HDR + t->size);

	memcpy(f, dst->mac, 6);
	memcpy(f + 6, src->mac, 6);
	put16(f + 12, ETHERTYPE_IPV4);
	memset(ip, 0, IPV4_HDR);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(IPV4_HDR + udp_len));
	put16(ip + 4, (uint16_t)i);
	ip[8] = 64;
	ip[9] = IPPROTO_UDP_NUM;
	put32(ip + 12, src->ip);
	put32(ip + 16, dst->ip);
	put16(udp, 4791);
	put16(udp + 2, 4791);
	put16(udp + 4, udp_len);
	put16(udp + 6, 0);
	/* Payload: frame number, then a pattern derived from it. */
	put32(udp + UDP_HDR, (uint32_t)(i >> 32));
	put32(udp + UDP_HDR + 4, (uint32_t)i);
	ex_payload_fill(udp + UDP_HDR + 8, t->size - 8, i);
	if (offload) {
		put16(udp + 6, csum_fold(udp_pseudo_sum(ip, udp_len)));
		return;
	}
	put16(udp + 6, (uint16_t)~csum_fold(csum_add(udp_pseudo_sum(ip, udp_len), udp, udp_len)));
	put16(ip + 10, (uint16_t)(~csum_fold(csum_add(0, ip, IPV4_HDR)) ^ 0x5a5a));
}

static bool frame_offloaded(uint64_t i)
{
	return i % BAD_CSUM_EVERY != BAD_CSUM_EVERY - 1;
}


/* Where the tag went: in the frame, stripped into the CQE, or nowhere. */
static int check_vlan(const struct eth_test *t, const struct eth_side *r,
		      const uint8_t *f, const struct mlx4_cqe *cqe,
		      size_t *l2_bytes)
{
	bool in_frame = get16(f + 12) == ETHERTYPE_VLAN;

	*l2_bytes = ETH_HDR + (in_frame ? VLAN_TAG : 0);
	if (t->vlan < 0) {
		if (in_frame || mlx4dv_cqe_vlan_present(cqe)) {
			fprintf(stderr, "%s: VLAN tag on a frame sent without one\n", r->name);
			return -1;
		}
		return 0;
	}
	if (in_frame && (get16(f + 14) & 0xfff) == t->vlan &&
	    !mlx4dv_cqe_vlan_present(cqe))
		return 0;
	if (!in_frame && mlx4dv_cqe_vlan_present(cqe) &&
	    mlx4dv_cqe_vlan_id(cqe) == t->vlan)
		return 0;
	fprintf(stderr, "%s: VLAN %d not found (tag in frame: %s, CQE: %s, VLAN ID %u)\n",
		r->name, t->vlan, in_frame ? "yes" : "no",
		mlx4dv_cqe_vlan_present(cqe) ? "stripped" : "none",
		in_frame ? get16(f + 14) & 0xfff : mlx4dv_cqe_vlan_id(cqe));
	return -1;
}

/* The receive checksum status must say what the frame really holds. */
static int check_csum_status(const struct eth_test *t, struct eth_side *r,
			     const struct mlx4_cqe *cqe, uint64_t seq, bool offloaded,
			     bool ip_ok, bool l4_ok)
{
	if (offloaded && (!ip_ok || !l4_ok)) {
		fprintf(stderr, "%s: frame %" PRIu64 ": checksums not completed by the device (IP %s, UDP %s)\n",
			r->name, seq, ip_ok ? "good" : "bad", l4_ok ? "good" : "bad");
		return -1;
	}
	if (!offloaded && ip_ok) {
		fprintf(stderr, "%s: frame %" PRIu64 ": the wrong IP checksum was changed in flight\n",
			r->name, seq);
		return -1;
	}
	if (!t->cqe_csum_valid)
		return 0;
	if (!mlx4dv_cqe_is_ipv4(cqe) ||
	    (offloaded && !mlx4dv_cqe_ip_csum_ok(cqe)) ||
	    (!offloaded && mlx4dv_cqe_ip_hdr_csum_ok(cqe))) {
		fprintf(stderr, "%s: frame %" PRIu64 ": CQE checksum status 0x%08x does not match a frame with %s IP checksum\n",
			r->name, seq, mlx4dv_cqe_status(cqe), offloaded ? "good" : "bad");
		return -1;
	}
	if (offloaded)
		r->csum_ok_frames++;
	else
		r->csum_bad_frames++;
	return 0;
}

static int check_frame(const struct eth_test *t, struct eth_side *r,
		       const struct eth_side *s, const uint8_t *f,
		       uint32_t byte_len, const struct mlx4_cqe *cqe)
{
	const uint8_t *ip, *udp;
	uint16_t udp_len = (uint16_t)(UDP_HDR + t->size);
	size_t l2;
	uint64_t seq;
	char what[64];

	if (check_vlan(t, r, f, cqe, &l2))
		return -1;
	if (byte_len != l2 - ETH_HDR + frame_bytes(t)) {
		fprintf(stderr, "%s: %u bytes received, expected %zu\n", r->name,
			byte_len, l2 - ETH_HDR + frame_bytes(t));
		return -1;
	}
	ip = f + l2;
	udp = ip + IPV4_HDR;
	if (memcmp(f, r->mac, 6) || memcmp(f + 6, s->mac, 6) ||
	    get16(ip - 2) != ETHERTYPE_IPV4 || ip[0] != 0x45 ||
	    ip[9] != IPPROTO_UDP_NUM || get32(ip + 12) != s->ip ||
	    get32(ip + 16) != r->ip || get16(udp + 4) != udp_len) {
		fprintf(stderr, "%s: frame headers are not the ones sent\n", r->name);
		return -1;
	}
	seq = (uint64_t)get32(udp + UDP_HDR) << 32 | get32(udp + UDP_HDR + 4);
	if (seq != r->received) {
		fprintf(stderr, "%s: frame %" PRIu64 " arrived, expected frame %" PRIu64 "\n",
			r->name, seq, r->received);
		return -1;
	}
	snprintf(what, sizeof(what), "%s, frame %" PRIu64, r->name, seq);
	if (!ex_payload_check(udp + UDP_HDR + 8, t->size - 8, seq, what))
		return -1;
	if (l2 > ETH_HDR || mlx4dv_cqe_vlan_present(cqe))
		r->vlan_frames++;
	return check_csum_status(t, r, cqe, seq, frame_offloaded(seq),
				 ipv4_header_ok(ip), udp_ok(ip, udp, udp_len));
}

/* ---- The direct data path: everything below goes through mlx4dv.h ---- */

static int ring_error(const struct eth_side *s, const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", s->name, what, strerror(err));
	return -1;
}

static int post_recv(struct eth_side *s, uint32_t k)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rx_slot(s, k),
		.length = (uint32_t)s->rx_slot_bytes,
		.lkey = s->ep.mr->lkey,
	};
	int ret = mlx4dv_rq_post(&s->rings.rq, k, &sge, 1);

	return ret ? ring_error(s, "mlx4dv_rq_post", ret) : 0;
}

static int send_frame(const struct eth_test *t, struct eth_side *s,
		      const struct eth_side *dst, uint64_t i)
{
	uint8_t *f = tx_slot(s, i);
	bool offload = frame_offloaded(i);
	struct ibv_sge sge = {
		.addr = (uintptr_t)f,
		.length = (uint32_t)frame_bytes(t),
		.lkey = s->ep.mr->lkey,
	};
	uint32_t flags = ((i + 1) % 8 == 0 || i + 1 == t->iters ? IBV_SEND_SIGNALED : 0) |
			 (offload ? IBV_SEND_IP_CSUM : 0) |
			 (t->vlan >= 0 ? MLX4DV_SEND_INS_CVLAN : 0);
	int ret;

	build_frame(t, f, i, s, dst, offload);
	ret = mlx4dv_sq_write_eth(&s->rings.sq, i, &sge, 1, flags,
				 t->vlan >= 0 ? (uint16_t)t->vlan : 0);
	if (ret)
		return ring_error(s, "mlx4dv_sq_write_eth", ret);
	mlx4dv_sq_ring_doorbell(&s->rings.sq);
	s->sent++;
	return 0;
}

static int error_cqe(const struct eth_side *s, const struct mlx4_cqe *cqe)
{
	fprintf(stderr, "%s: error CQE on the %s queue: %s (syndrome 0x%02x, vendor 0x%02x, WQE %u)\n",
		s->name, mlx4dv_cqe_is_send(cqe) ? "send" : "receive",
		ibv_wc_status_str(mlx4dv_cqe_wc_status(cqe)), mlx4dv_cqe_syndrome(cqe),
		mlx4dv_cqe_vendor_syndrome(cqe), mlx4dv_cqe_wqe_index(cqe));
	return -1;
}

static int poll_sends(struct eth_side *s)
{
	struct mlx4dv_cq_ring *cq = &s->rings.send_cq;
	struct mlx4_cqe *cqe;
	int n = 0;

	while (n < CQ_BATCH && (cqe = mlx4dv_cq_next(cq))) {
		uint64_t wr_id = UINT64_MAX;

		n++;
		if (mlx4dv_cqe_is_error(cqe))
			return error_cqe(s, cqe);
		if (!mlx4dv_cqe_is_send(cqe) ||
		    mlx4dv_sq_complete_cqe(&s->rings.sq, cqe, &wr_id) != 0 ||
		    wr_id >= s->sent || wr_id < s->send_completed) {
			fprintf(stderr, "%s: unexpected send CQE (WQE %u)\n", s->name,
				mlx4dv_cqe_wqe_index(cqe));
			return -1;
		}
		s->send_completed = wr_id + 1;
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return n;
}

static int poll_receives(const struct eth_test *t, struct eth_side *r,
			 const struct eth_side *s)
{
	struct mlx4dv_cq_ring *cq = &r->rings.recv_cq;
	struct mlx4_cqe *cqe;
	int n = 0, ret = 0;

	while (!ret && n < CQ_BATCH && (cqe = mlx4dv_cq_next(cq))) {
		uint64_t k = UINT64_MAX;

		n++;
		if (mlx4dv_cqe_is_error(cqe)) {
			ret = error_cqe(r, cqe);
			break;
		}
		ret = mlx4dv_rq_complete(&r->rings.rq, cqe, &k);
		if (ret || k >= r->rx_depth) {
			fprintf(stderr, "%s: receive CQE not of this RQ\n", r->name);
			ret = -1;
			break;
		}
		ret = check_frame(t, r, s, rx_slot(r, (uint32_t)k),
				  mlx4dv_cqe_byte_len(cqe), cqe);
		if (!ret) {
			r->received++;
			ret = post_recv(r, (uint32_t)k);
		}
	}
	if (n)
		mlx4dv_cq_update_ci(cq);
	return ret ? -1 : n;
}

/* The likely cause on a two-port adapter: a cable between its ports takes
 * the frames away from the port both stations are on. */
static void explain_loss(const struct ex_device *dev)
{
	if (dev->attr.phys_port_cnt < 2)
		return;
	fprintf(stderr, "%s: both stations are on port %u of %s and receive only what that port "
		"loops back; if a cable joins ports 1 and 2, the frames went to port %u instead "
		"(software device: run without --cross-cable)\n",
		program.name, dev->port, dev->name, dev->port == 1 ? 2u : 1u);
}

/* iters frames from s to r; never more in flight than r has receives. */
static int stream(const struct eth_test *t, struct eth_side *s, struct eth_side *r)
{
	struct ex_watchdog wd;

	ex_watchdog_start(&wd, 0);
	while (r->received < t->iters || s->send_completed < s->sent) {
		int a, b;

		while (s->sent < t->iters && s->sent - r->received < r->rx_depth &&
		       s->sent - s->send_completed < s->tx_slots)
			if (send_frame(t, s, r, s->sent))
				return -1;
		a = poll_sends(s);
		b = poll_receives(t, r, s);
		if (a < 0 || b < 0)
			return -1;
		if (ex_watchdog_stalled(&wd, r->received + s->send_completed)) {
			fprintf(stderr, "%s -> %s: no progress for 5 s: %" PRIu64 " of %" PRIu64
				" frames received, %" PRIu64 " sent; frames were lost\n",
				s->name, r->name, r->received, t->iters, s->sent);
			explain_loss(t->dev);
			return -1;
		}
	}
	return 0;
}

/* Steers frames for the side's MAC to its QP. */
static int create_flow(const struct ex_device *dev, struct eth_side *s)
{
	struct {
		struct ibv_flow_attr		attr;
		struct ibv_flow_spec_eth	eth;
	} rule = {
		.attr = {
			.type = IBV_FLOW_ATTR_NORMAL,
			.size = sizeof(rule),
			.num_of_specs = 1,
			.port = dev->port,
		},
		.eth = {
			.type = IBV_FLOW_SPEC_ETH,
			.size = sizeof(struct ibv_flow_spec_eth),
		},
	};

	memcpy(rule.eth.val.dst_mac, s->mac, 6);
	memset(rule.eth.mask.dst_mac, 0xff, 6);
	s->flow = ibv_create_flow(s->ep.qp, &rule.attr);
	if (!s->flow) {
		fprintf(stderr, "%s: ibv_create_flow: %s\n", s->name, strerror(errno));
		return -1;
	}
	return 0;
}

static int setup_side(const struct eth_test *t, struct eth_side *s,
		      const char *name, unsigned index, uint32_t rx_depth)
{
	struct ex_endpoint_config cfg = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.max_send_wr = SEND_DEPTH,
		.max_recv_wr = rx_depth,
		.max_send_sge = 1,
		.max_recv_sge = 1,
		.send_cqe = SEND_DEPTH,
		.recv_cqe = rx_depth,
	};
	int ret;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->rx_depth = rx_depth;
	s->tx_slots = SEND_DEPTH;
	s->rx_slot_bytes = (frame_bytes(t) + VLAN_TAG + 63) / 64 * 64;
	cfg.buf_size = (size_t)s->tx_slots * 2048 + (size_t)rx_depth * s->rx_slot_bytes;
	/* Locally administered unicast addresses of the example's own. */
	memcpy(s->mac, (const uint8_t[6]){ 0x02, 0x4d, 0x34, 0x44, 0x56, 0 }, 6);
	s->mac[5] = (uint8_t)(index + 1);
	s->ip = 0xc0a86400u | (index + 1);	/* 192.168.100.x */
	if (ex_endpoint_create(&s->ep, t->dev, &cfg) || create_flow(t->dev, s))
		return -1;
	ret = mlx4dv_qp_rings_init(&s->rings, s->ep.qp, MLX4DV_RING_INIT_WRID);
	if (ret)
		return ring_error(s, "mlx4dv_qp_rings_init", ret);
	s->rings_ready = true;
	for (uint32_t k = 0; k < rx_depth; k++)
		if (post_recv(s, k))
			return -1;
	return 0;
}

static void teardown_side(struct eth_side *s)
{
	if (s->rings_ready)
		mlx4dv_qp_rings_release(&s->rings);
	s->rings_ready = false;
	if (s->flow)
		ibv_destroy_flow(s->flow);
	s->flow = NULL;
	ex_endpoint_destroy(&s->ep);
}

static void report_side(const struct eth_side *r)
{
	printf("%s: %s received %" PRIu64 " frames: %" PRIu64 " with good IP/UDP checksums reported, %"
	       PRIu64 " with the bad IP checksum reported, %" PRIu64 " tagged\n",
	       program.name, r->name, r->received, r->csum_ok_frames,
	       r->csum_bad_frames, r->vlan_frames);
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	struct ex_device dev;
	struct eth_test t;
	struct eth_side a, b;
	int status = 1;

	status = ex_main_start(&program, argc, argv, &opts, &dev);
	if (status != EX_MAIN_RUN)
		return status;
	status = 1;	/* until every check passed */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!ex_device_is_ethernet(&dev)) {
		fprintf(stderr, "%s: port %u of %s is InfiniBand; raw Ethernet needs an Ethernet port (software device: mlx4emu-run --link-layer=eth %s)\n",
			program.name, dev.port, dev.name, program.name);
		goto out;
	}
	t = (struct eth_test) {
		.dev = &dev,
		.size = opts.size,
		.iters = opts.iters,
		.vlan = opts.vlan,
		.cqe_csum_valid = (dev.attr.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM) != 0,
	};
	if (setup_side(&t, &a, "station A", 0, opts.rx_depth) ||
	    setup_side(&t, &b, "station B", 1, opts.rx_depth) ||
	    ex_endpoint_connect_pair(&a.ep, &b.ep))
		goto out;
	printf("%s: %s port %u, %zu-byte IPv4/UDP frames, %u each way, VLAN %s, receive checksum status %s\n",
	       program.name, dev.name, dev.port, frame_bytes(&t), opts.iters,
	       opts.vlan >= 0 ? "inserted by the device" : "none",
	       t.cqe_csum_valid ? "checked" : "not offered by the device");
	if (stream(&t, &a, &b) || stream(&t, &b, &a))
		goto out;
	report_side(&b);
	report_side(&a);
	printf("%s: checks passed: %u frames each way verified (headers, checksums, payload%s)\n",
	       program.name, opts.iters, opts.vlan >= 0 ? ", VLAN" : "");
	status = 0;
out:
	teardown_side(&a);
	teardown_side(&b);
	return ex_device_finish(&dev, program.name, status);
}
