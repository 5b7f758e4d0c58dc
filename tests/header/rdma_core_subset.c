/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * What a program written for rdma-core's <infiniband/mlx4dv.h> uses: the
 * layouts, the three builders and libmlx4's functions. It must build on
 * every architecture, also where the data path of Part 2..5 cannot.
 */
#include <infiniband/mlx4dv.h>

int rdma_core_subset(struct ibv_qp *qp, void *wqe, uint8_t *gid, uint8_t *mac);

int rdma_core_subset(struct ibv_qp *qp, void *wqe, uint8_t *gid, uint8_t *mac)
{
	struct mlx4dv_qp dv_qp;
	struct mlx4dv_obj obj;
	struct mlx4_wqe_ctrl_seg *ctrl = (struct mlx4_wqe_ctrl_seg *)wqe;
	struct mlx4_wqe_datagram_seg *dgram = (struct mlx4_wqe_datagram_seg *)(ctrl + 1);
	struct mlx4_wqe_data_seg *data = (struct mlx4_wqe_data_seg *)(dgram + 1);

	memset(&obj, 0, sizeof(obj));
	obj.qp.in = qp;
	obj.qp.out = &dv_qp;
	mlx4dv_set_ctrl_seg(ctrl, MLX4_OPCODE_SEND, 6, MLX4_WQE_CTRL_CQ_UPDATE, 0);
	mlx4dv_set_dgram_seg(dgram, 1u << 24 | 3, 0, 0, 0, 0, 64, 0, gid, 0x10, 0x11, 0, mac);
	mlx4dv_set_data_seg(data, 64, 0x1234, (uintptr_t)wqe);
	return mlx4dv_init_obj(&obj, MLX4DV_OBJ_QP);
}
