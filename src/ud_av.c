// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * UD address vectors of libmlx4's address handles, and PD numbers.
 *
 * libmlx4 keeps the address vector of an ibv_ah (struct mlx4_ah) and the
 * PD number (struct mlx4_pd) private, and mlx4dv_init_obj() exports
 * neither. Its one public output that carries both is the datagram
 * segment ibv_post_send() builds for a UD work request: the AV of the
 * request's AH, port_pd holding the PD number (rdma-core 44.0
 * providers/mlx4/qp.c set_datagram_seg, verbs.c mlx4_create_ah). So the
 * unit lets libmlx4 build one such WQE on a scratch UD QP of the AH's PD
 * that never leaves RESET (the device executes nothing of a QP in RESET;
 * libmlx4 re-prepares the ring on RESET->INIT, and the QP is destroyed
 * right after) and reads the segment back through mlx4dv_init_obj()'s
 * view of the ring.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* The datagram segment follows the 16-byte control segment. */
static int read_datagram_seg(struct ibv_qp *qp, struct mlx4_wqe_datagram_seg *out)
{
	struct mlx4dv_qp dv;
	int ret;

	ret = mlx4dv_priv_raw_qp(qp, &dv);
	if (ret)
		return ret;
	if (!dv.buf.buf || dv.sq.offset < 0 || dv.sq.wqe_cnt == 0 ||
	    (uint64_t)dv.sq.offset + sizeof(struct mlx4_wqe_ctrl_seg) +
	    sizeof(*out) > dv.buf.length)
		return ENOTSUP;
	memcpy(out, (uint8_t *)dv.buf.buf + dv.sq.offset +
	       sizeof(struct mlx4_wqe_ctrl_seg), sizeof(*out));
	return 0;
}

/* One UD SEND of no bytes to ah, built by libmlx4 on a scratch QP. */
static int libmlx4_datagram_seg(struct ibv_ah *ah,
				struct mlx4_wqe_datagram_seg *seg)
{
	struct ibv_qp_init_attr attr;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int ret;

	cq = ibv_create_cq(ah->context, 1, NULL, NULL, 0);
	if (!cq)
		return errno ? errno : ENOMEM;
	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_UD;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	qp = ibv_create_qp(ah->pd, &attr);
	if (!qp) {
		ret = errno ? errno : ENOMEM;
		goto out_cq;
	}
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = 1;
	ret = ibv_post_send(qp, &wr, &bad);
	if (!ret)
		ret = read_datagram_seg(qp, seg);
	if (ibv_destroy_qp(qp) && !ret)
		ret = EBUSY;
out_cq:
	if (ibv_destroy_cq(cq) && !ret)
		ret = EBUSY;
	return ret;
}

/*
 * The AV as written; the MAC only on an Ethernet port, the VLAN only when
 * port_pd bit 29 says the AV has one: libmlx4 sets them there alone and
 * copies whatever its AH holds otherwise (never initialised), where the
 * device ignores them (mlx4dv_ud_av_from_attr() leaves them 0). The port is
 * bits 24..28 of port_pd.
 */
static int ud_av_fill(struct mlx4dv_ud_av *out, struct ibv_context *context,
		      const struct mlx4_wqe_datagram_seg *seg)
{
	uint8_t port = (uint8_t)((mlx4dv_be32_to_cpu(seg->av.port_pd) >> 24) & 0x1f);
	struct ibv_port_attr attr;
	int ret;

	memset(&attr, 0, sizeof(attr));
	ret = ibv_query_port(context, port, &attr);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	memcpy(&out->av, &seg->av, sizeof(out->av));
	if (attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (mlx4dv_be32_to_cpu(seg->av.port_pd) & (1U << 29))
			out->vlan = seg->vlan;
		memcpy(out->mac, seg->mac, sizeof(out->mac));
	}
	return 0;
}

int mlx4dv_ud_av_from_ah(struct mlx4dv_ud_av *out, struct ibv_ah *ah)
{
	struct mlx4_wqe_datagram_seg seg;
	int ret;

	if (!out || !ah || !ah->pd || !ah->context)
		return EINVAL;
	ret = mlx4dv_priv_context_check(ah->context);
	if (ret)
		return ret;
	ret = libmlx4_datagram_seg(ah, &seg);
	if (ret)
		return ret;
	ret = ud_av_fill(out, ah->context, &seg);
	return ret;
}

/*
 * An AH that libmlx4 accepts on any port: on InfiniBand a LID, on
 * Ethernet (a GRH is required) a multicast GID, whose MAC follows from
 * the GID itself without a neighbour lookup.
 */
static void probe_ah_attr(struct ibv_ah_attr *attr, const struct ibv_port_attr *port)
{
	memset(attr, 0, sizeof(*attr));
	attr->port_num = 1;
	attr->dlid = 1;
	if (port->link_layer == IBV_LINK_LAYER_ETHERNET ||
	    (port->flags & IBV_QPF_GRH_REQUIRED)) {
		attr->is_global = 1;
		attr->grh.hop_limit = 1;
		attr->grh.dgid.raw[0] = 0xff;
		attr->grh.dgid.raw[1] = 0x0e;
		attr->grh.dgid.raw[15] = 0x01;
	}
}

int mlx4dv_pd_query_pdn(struct ibv_pd *pd, uint32_t *pdn)
{
	struct ibv_port_attr port;
	struct ibv_ah_attr attr;
	struct mlx4dv_ud_av av;
	struct ibv_ah *ah;
	int ret, dret;

	if (!pd || !pdn || !pd->context)
		return EINVAL;
	ret = mlx4dv_priv_context_check(pd->context);
	if (ret)
		return ret;
	memset(&port, 0, sizeof(port));
	ret = ibv_query_port(pd->context, 1, &port);
	if (ret)
		return ret;
	probe_ah_attr(&attr, &port);
	ah = ibv_create_ah(pd, &attr);
	if (!ah)
		return errno ? errno : ENOMEM;
	ret = mlx4dv_ud_av_from_ah(&av, ah);
	dret = ibv_destroy_ah(ah);
	if (ret)
		return ret;
	if (dret)
		return dret;
	*pdn = mlx4dv_ud_av_pdn(&av);
	return 0;
}

/* The 0.2 name (symbol version MLX4DV_0.2), kept while programs link it. */
int mlx4dv_pd_number(struct ibv_pd *pd, uint32_t *pdn)
{
	return mlx4dv_pd_query_pdn(pd, pdn);
}
