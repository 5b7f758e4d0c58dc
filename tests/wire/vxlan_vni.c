// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * vxlan_vni: an Ethernet port takes a VXLAN frame only from its own wire
 * segment (run under mlx4emu-run --link-layer=eth --wire-segment=N).  A
 * raw packet QP steered the port's MAC, receive WQEs posted; a child
 * sends, from UDP 4789 of an address of its own to the port's address,
 * three frames unicast to that MAC: VNI N + 1 (another segment), VNI 0
 * (no segment), then 200 ms later VNI N.  The first receive WQE must
 * complete with the third frame, nothing else may complete, and the
 * adapter must count two frames lost and one received
 * (wire_frames_lost, wire_frames_received of mlx4emu_get_counters()).
 * Exit 0 (PASS), 1 (FAIL), 77 when the emulator is not loaded or the
 * port is not Ethernet or on no segment.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MLX4EMU_CTL_WANT_LOADER
#include "mlx4emu_ctl.h"
#include "test_exit.h"
#include "ud_forge.h"
#include "verbs_env.h"

#define RECV_WQES 4
#define FRAME 64
#define VXLAN_HDR 8
#define ETHER_TYPE 0x88b5	/* IEEE local experimental */

#define FAIL(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); return T_EXIT_FAIL; } \
	while (0)

/* A VXLAN datagram (RFC 7348: flags 0x08, VNI in bytes 4..6) holding a
 * frame to mac whose bytes after the Ethernet header are seq's. */
static void vxlan_frame(uint8_t *d, uint32_t vni, const uint8_t mac[6], uint8_t seq)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0xfa, 0x01 };

	memset(d, 0, VXLAN_HDR);
	d[0] = 0x08;
	d[4] = (uint8_t)(vni >> 16);
	d[5] = (uint8_t)(vni >> 8);
	d[6] = (uint8_t)vni;
	d += VXLAN_HDR;
	memcpy(d, mac, 6);
	memcpy(d + 6, src, 6);
	d[12] = ETHER_TYPE >> 8;
	d[13] = ETHER_TYPE & 0xff;
	d[14] = seq;
	for (unsigned i = 15; i < FRAME; i++)
		d[i] = (uint8_t)(seq * 37u + i);
}

/* The child: the frames of VNI segment + 1 and 0, then of segment
 * (system calls only). */
static int sender(uint32_t dst, uint32_t segment, const uint8_t mac[6])
{
	const uint32_t vnis[3] = { (segment + 1) & 0xffffff, 0, segment };
	uint8_t d[VXLAN_HDR + FRAME];
	uint32_t src;
	int fd = ud_forge_socket(FORGE_VXLAN_PORT, &src);

	if (fd < 0)
		return 1;
	for (unsigned i = 0; i < 3; i++) {
		if (i == 2)
			usleep(200000);
		vxlan_frame(d, vnis[i], mac, (uint8_t)(i + 1));
		if (ud_forge_send(fd, dst, FORGE_VXLAN_PORT, d, sizeof(d)))
			return 1;
	}
	return 0;
}

int main(void)
{
	static uint8_t buf[RECV_WQES][2048];
	struct ibv_qp_cap cap = { .max_send_wr = 1, .max_recv_wr = RECV_WQES,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct mlx4emu_counters before, after;
	const char *seg = getenv("MLX4EMU_WIRE_SEGMENT");
	uint32_t segment = seg ? (uint32_t)strtoul(seg, NULL, 0) : 0, addr;
	struct mlx4emu_ctl ctl;
	struct vx_qp_attrs a;
	struct ibv_flow *flow;
	struct vx_env e;
	struct ibv_wc wc;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t mac[6], want[VXLAN_HDR + FRAME];
	pid_t child;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (mlx4emu_ctl_load(&ctl)) {
		printf("SKIP: the emulator is not loaded\n");
		return T_EXIT_SKIP;
	}
	if (!segment) {
		printf("SKIP: no wire segment (--wire-segment)\n");
		return T_EXIT_SKIP;
	}
	if (vx_env_open(&e, NULL, 0, 1))
		FAIL("no device");
	if (e.port_attr.link_layer != IBV_LINK_LAYER_ETHERNET) {
		printf("SKIP: port 1 is not an Ethernet port\n");
		return T_EXIT_SKIP;
	}
	if (vx_port_mac(e.ctx, 1, mac) || vx_port_ipv4(e.ctx, 1, &addr))
		FAIL("GID query");
	mr = ibv_reg_mr(e.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	cq = mr ? ibv_create_cq(e.ctx, 16, NULL, NULL, 0) : NULL;
	qp = cq ? vx_qp_create(e.pd, IBV_QPT_RAW_PACKET, cq, cq, NULL, &cap) : NULL;
	vx_qp_attrs_default(&a, 1);
	if (!qp || vx_qp_to_rts(qp, &a))
		FAIL("raw packet QP in RTS");
	flow = vx_flow_dst_mac(qp, 1, mac);
	if (!flow)
		FAIL("ibv_create_flow");
	if (vx_post_recv_slots(qp, buf, sizeof(buf[0]), RECV_WQES, mr->lkey))
		FAIL("post receives");
	if (ctl.get_counters(&before))
		FAIL("counters");
	child = fork();
	if (child < 0)
		FAIL("fork");
	if (!child)
		_exit(sender(addr, segment, mac));
	if (vx_child_exit_status(child))
		FAIL("the sender could not send");

	if (!vx_cq_wait(cq, &wc, 30000))
		FAIL("no completion within 30 s for the frame of segment %u", segment);
	vxlan_frame(want, segment, mac, 3);
	if (wc.wr_id != 0 || wc.status != IBV_WC_SUCCESS || wc.byte_len != FRAME ||
	    memcmp(buf[0], want + VXLAN_HDR, FRAME))
		FAIL("the first completion: WQE %llu, status %s, %u bytes, frame %u (want WQE 0, "
		     "success, %u bytes, frame 3 of VNI %u): a frame of another segment was taken",
		     (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.byte_len,
		     buf[0][14], FRAME, segment);
	if (vx_cq_wait(cq, &wc, 200))
		FAIL("a second completion (WQE %llu): a frame of another segment was taken",
		     (unsigned long long)wc.wr_id);
	if (ctl.get_counters(&after))
		FAIL("counters");
	printf("VNI %u: wire_frames_received %llu -> %llu, wire_frames_lost %llu -> %llu\n",
	       segment, (unsigned long long)before.wire_frames_received,
	       (unsigned long long)after.wire_frames_received,
	       (unsigned long long)before.wire_frames_lost,
	       (unsigned long long)after.wire_frames_lost);
	if (after.wire_frames_received - before.wire_frames_received != 1 ||
	    after.wire_frames_lost - before.wire_frames_lost != 2)
		FAIL("the port took %llu frames and lost %llu, not 1 and 2",
		     (unsigned long long)(after.wire_frames_received - before.wire_frames_received),
		     (unsigned long long)(after.wire_frames_lost - before.wire_frames_lost));
	if (ibv_destroy_flow(flow) || ibv_destroy_qp(qp) || ibv_destroy_cq(cq) ||
	    ibv_dereg_mr(mr) || vx_env_close(&e))
		FAIL("destroy");
	printf("PASS: frames of other segments are ignored, even unicast to the port's MAC\n");
	return T_EXIT_PASS;
}
