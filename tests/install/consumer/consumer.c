// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * A program built only from an installed mlx4dv: it converts two connected
 * RC QPs with libmlx4dv, sends one message through the SQ handle, and
 * reads both completions through the CQ handles. Exit status 0 on success.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx4dv.h>

#ifndef MLX4DV_VERSION_MAJOR
#error "<infiniband/mlx4dv.h> resolved to rdma-core's header, not mlx4dv's"
#endif

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "consumer: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	exit(1); } } while (0)

enum { MSG = 64 };

static void connect_qp(struct ibv_qp *qp, uint32_t dest, uint16_t lid,
		       const union ibv_gid *gid, int eth)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.dlid = lid;
	if (eth) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.hop_limit = 1;
	}
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			     IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	CHECK(!ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_MAX_QP_RD_ATOMIC));
}

static struct mlx4_cqe *wait_cqe(struct mlx4dv_cq_ring *cq)
{
	uint8_t *slot = cq->buf +
		(size_t)(cq->cons_index & (cq->cqe_cnt - 1)) * cq->cqe_size;
	struct mlx4_cqe *cqe = (struct mlx4_cqe *)(slot + cq->cqe_size - 32);
	uint8_t want = (cq->cons_index & cq->cqe_cnt) ? MLX4_CQE_OWNER_MASK : 0;

	for (long n = 0; n < 20000000; n++) {
		if ((*(volatile uint8_t *)&cqe->owner_sr_opcode &
		     MLX4_CQE_OWNER_MASK) == want) {
			mlx4dv_barrier_from_device();
			cq->cons_index++;
			*cq->set_ci_db = mlx4dv_cpu_to_be32(cq->cons_index & 0xffffff);
			return cqe;
		}
		sched_yield();
	}
	return NULL;
}

int main(void)
{
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_recv_wr = 8,
				  .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_qp_init_attr qa;
	struct ibv_device **list;
	struct ibv_port_attr port;
	union ibv_gid gid;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *q1, *q2;
	struct ibv_mr *mr;
	struct mlx4dv_qp_rings r1, r2;
	struct mlx4_wqe_ctrl_seg *ctrl;
	struct mlx4_wqe_data_seg *data, *rseg;
	struct mlx4_cqe *cqe;
	static uint8_t mem[2 * MSG];
	int n = 0;

	CHECK(mlx4dv_version() == MLX4DV_VERSION);
	printf("mlx4dv %s\n", mlx4dv_version_string());

	list = ibv_get_device_list(&n);
	CHECK(list && n > 0);
	ctx = ibv_open_device(list[0]);
	CHECK(ctx);
	CHECK(!ibv_query_port(ctx, 1, &port));
	CHECK(!ibv_query_gid(ctx, 1, 0, &gid));
	pd = ibv_alloc_pd(ctx);
	CHECK(pd);
	cq = ibv_create_cq(ctx, 15, NULL, NULL, 0);
	CHECK(cq);
	for (int i = 0; i < MSG; i++)
		mem[i] = (uint8_t)(0xa0 ^ i);
	mr = ibv_reg_mr(pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	CHECK(mr);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qa.cap = cap;
	q1 = ibv_create_qp(pd, &qa);
	q2 = ibv_create_qp(pd, &qa);
	CHECK(q1 && q2);

	CHECK(mlx4dv_qp_rings_init(&r1, q1, 0) == 0);
	CHECK(mlx4dv_qp_rings_init(&r2, q2, 0) == 0);
	CHECK(r1.flags == MLX4DV_QP_RINGS_SHARED_CQ);
	connect_qp(q1, q2->qp_num, port.lid, &gid,
		   port.link_layer == IBV_LINK_LAYER_ETHERNET);
	connect_qp(q2, q1->qp_num, port.lid, &gid,
		   port.link_layer == IBV_LINK_LAYER_ETHERNET);

	/* receive on q2 */
	rseg = (struct mlx4_wqe_data_seg *)r2.rq.buf;
	rseg->lkey = mlx4dv_cpu_to_be32(mr->lkey);
	rseg->addr = mlx4dv_cpu_to_be64((uintptr_t)(mem + MSG));
	rseg->byte_count = mlx4dv_cpu_to_be32(MSG);
	r2.rq.head++;
	mlx4dv_barrier_to_device();
	*r2.rq.db = mlx4dv_cpu_to_be32(r2.rq.head & 0xffff);

	/* SEND on q1: control + one data segment, owner bit 0 on the first lap */
	ctrl = (struct mlx4_wqe_ctrl_seg *)r1.sq.buf;
	data = (struct mlx4_wqe_data_seg *)(ctrl + 1);
	data->lkey = mlx4dv_cpu_to_be32(mr->lkey);
	data->addr = mlx4dv_cpu_to_be64((uintptr_t)mem);
	data->byte_count = mlx4dv_cpu_to_be32(MSG);
	ctrl->srcrb_flags = mlx4dv_cpu_to_be32(MLX4_WQE_CTRL_CQ_UPDATE);
	ctrl->imm = 0;
	ctrl->fence_size = 2;
	mlx4dv_barrier_to_device();
	ctrl->owner_opcode = mlx4dv_cpu_to_be32(MLX4_OPCODE_SEND);
	r1.sq.head++;
	mlx4dv_barrier_to_device();
	mlx4dv_mmio_write32_be(r1.sq.doorbell, r1.sq.doorbell_qpn);

	/* two completions on the shared CQ, one per side */
	for (int i = 0; i < 2; i++) {
		cqe = wait_cqe(&r1.send_cq);
		CHECK(cqe);
		CHECK((cqe->owner_sr_opcode & MLX4_CQE_OPCODE_MASK) !=
		      MLX4_CQE_OPCODE_ERROR);
	}
	CHECK(!memcmp(mem, mem + MSG, MSG));

	mlx4dv_qp_rings_release(&r1);
	mlx4dv_qp_rings_release(&r2);
	CHECK(!ibv_destroy_qp(q1));
	CHECK(!ibv_destroy_qp(q2));
	CHECK(!ibv_destroy_cq(cq));
	CHECK(!ibv_dereg_mr(mr));
	CHECK(!ibv_dealloc_pd(pd));
	CHECK(!ibv_close_device(ctx));
	ibv_free_device_list(list);
	printf("consumer: message sent and received through the handles\n");
	return 0;
}
