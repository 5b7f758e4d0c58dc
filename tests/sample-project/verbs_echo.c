/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#define _POSIX_C_SOURCE 200809L

#include "verbs_echo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ECHO_MTU IBV_MTU_1024

static int fail(const char *what, int err)
{
	fprintf(stderr, "verbs_echo: %s: %s\n", what, strerror(err));
	return -1;
}

static int open_first_device(struct echo_conn *c)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);

	if (!list || n == 0) {
		if (list)
			ibv_free_device_list(list);
		fprintf(stderr, "verbs_echo: no RDMA device (on a machine without "
			"one, run under mlx4emu-run)\n");
		return -1;
	}
	c->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	return c->ctx ? 0 : fail("ibv_open_device", errno);
}

/* InfiniBand: the LID addresses the peer. Ethernet (RoCE): GID 1, the
 * RoCE v2 GID of the port's IPv4 address, as on a ConnectX-3 Pro. */
static int read_port_address(struct echo_conn *c)
{
	struct ibv_port_attr pa;
	union ibv_gid gid;

	if (ibv_query_port(c->ctx, c->port, &pa))
		return fail("ibv_query_port", errno);
	c->gid_index = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? 1 : -1;
	memset(&gid, 0, sizeof(gid));
	if (c->gid_index >= 0 && ibv_query_gid(c->ctx, c->port, c->gid_index, &gid))
		return fail("ibv_query_gid", errno);
	c->self.lid = htons(pa.lid);
	memcpy(c->self.gid, gid.raw, sizeof(gid.raw));
	c->self.qpn = htonl(c->qp->qp_num);
	c->self.psn = htonl((uint32_t)(getpid() * 7919u) & 0xffffff);
	return 0;
}

static int create_objects(struct echo_conn *c)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = ECHO_DEPTH, .max_recv_wr = ECHO_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd)
		return fail("ibv_alloc_pd", errno);
	c->buf = calloc(2, c->size);
	if (!c->buf)
		return fail("calloc", ENOMEM);
	c->mr = ibv_reg_mr(c->pd, c->buf, 2 * (size_t)c->size, IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return fail("ibv_reg_mr", errno);
	c->channel = ibv_create_comp_channel(c->ctx);
	if (!c->channel)
		return fail("ibv_create_comp_channel", errno);
	c->cq = ibv_create_cq(c->ctx, 2 * ECHO_DEPTH, NULL, c->channel, 0);
	if (!c->cq)
		return fail("ibv_create_cq", errno);
	if (ibv_req_notify_cq(c->cq, 0))
		return fail("ibv_req_notify_cq", errno);
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	c->qp = ibv_create_qp(c->pd, &qa);
	return c->qp ? 0 : fail("ibv_create_qp", errno);
}

int echo_open(struct echo_conn *c, uint32_t size)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .pkey_index = 0,
		.qp_access_flags = 0,
	};

	memset(c, 0, sizeof(*c));
	c->size = size;
	c->port = 1;
	if (open_first_device(c) || create_objects(c) || read_port_address(c))
		return -1;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return fail("ibv_modify_qp INIT", errno);
	return 0;
}

int echo_connect(struct echo_conn *c, const struct echo_wire_addr *peer)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = ECHO_MTU,
		.dest_qp_num = ntohl(peer->qpn), .rq_psn = ntohl(peer->psn),
		.max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = { .dlid = ntohs(peer->lid), .port_num = c->port },
	};

	if (c->gid_index >= 0) {
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.sgid_index = (uint8_t)c->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		memcpy(a.ah_attr.grh.dgid.raw, peer->gid, sizeof(peer->gid));
	}
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return fail("ibv_modify_qp RTR", errno);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = ntohl(c->self.psn);
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		return fail("ibv_modify_qp RTS", errno);
	return 0;
}

int echo_post_recv(struct echo_conn *c)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf, .length = c->size, .lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int err = ibv_post_recv(c->qp, &wr, &bad);

	return err ? fail("ibv_post_recv", err) : 0;
}

int echo_post_send(struct echo_conn *c, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + c->size), .length = len,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 2, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int err = ibv_post_send(c->qp, &wr, &bad);

	return err ? fail("ibv_post_send", err) : 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Blocks until the CQ's next completion event, at most timeout_ms. */
static int wait_event(struct echo_conn *c, int timeout_ms)
{
	struct pollfd pfd = { .fd = c->channel->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;
	int n = poll(&pfd, 1, timeout_ms);

	if (n < 0)
		return fail("poll", errno);
	if (n == 0) {
		fprintf(stderr, "verbs_echo: no completion within %d ms\n", timeout_ms);
		return -1;
	}
	if (ibv_get_cq_event(c->channel, &cq, &cq_ctx))
		return fail("ibv_get_cq_event", errno);
	ibv_ack_cq_events(cq, 1);
	return ibv_req_notify_cq(cq, 0) ? fail("ibv_req_notify_cq", errno) : 0;
}

/* A receive completion the current wait does not count: the next one will. */
static int keep_recv(struct echo_conn *c, uint32_t len)
{
	if (c->early_recvs == ECHO_DEPTH) {
		fprintf(stderr, "verbs_echo: more receive completions than receives posted\n");
		return -1;
	}
	c->early_recv_len[(c->early_recv_first + (unsigned)c->early_recvs) % ECHO_DEPTH] = len;
	c->early_recvs++;
	return 0;
}

/* The completions an earlier wait kept count first. */
static void take_early(struct echo_conn *c, int *sends, int *recvs, uint32_t *recv_len)
{
	while (*sends > 0 && c->early_sends > 0) {
		(*sends)--;
		c->early_sends--;
	}
	while (*recvs > 0 && c->early_recvs > 0) {
		if (recv_len)
			*recv_len = c->early_recv_len[c->early_recv_first];
		c->early_recv_first = (c->early_recv_first + 1) % ECHO_DEPTH;
		c->early_recvs--;
		(*recvs)--;
	}
}

int echo_wait(struct echo_conn *c, int sends, int recvs, uint32_t *recv_len,
	      int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	take_early(c, &sends, &recvs, recv_len);
	while (sends > 0 || recvs > 0) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(c->cq, 1, &wc);

		if (n < 0)
			return fail("ibv_poll_cq", EIO);
		if (n == 0) {
			long long left = deadline - now_ms();

			if (wait_event(c, left > 0 ? (int)left : 0))
				return -1;
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "verbs_echo: %s completion: %s\n",
				wc.opcode & IBV_WC_RECV ? "receive" : "send",
				ibv_wc_status_str(wc.status));
			return -1;
		}
		if (!(wc.opcode & IBV_WC_RECV)) {
			if (sends > 0)
				sends--;
			else
				c->early_sends++;
		} else if (recvs > 0) {
			recvs--;
			if (recv_len)
				*recv_len = wc.byte_len;
		} else if (keep_recv(c, wc.byte_len)) {
			return -1;
		}
	}
	return 0;
}

void echo_close(struct echo_conn *c)
{
	if (c->qp)
		ibv_destroy_qp(c->qp);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->channel)
		ibv_destroy_comp_channel(c->channel);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ctx)
		ibv_close_device(c->ctx);
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

int echo_tcp_send_all(int fd, const void *p, size_t n)
{
	const char *q = p;

	while (n > 0) {
		ssize_t w = send(fd, q, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return fail("send", w < 0 ? errno : EPIPE);
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

int echo_tcp_recv_all(int fd, void *p, size_t n, int timeout_ms)
{
	char *q = p;
	long long deadline = now_ms() + timeout_ms;

	while (n > 0) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)left) == 0) {
			fprintf(stderr, "verbs_echo: the peer said nothing within %d ms\n",
				timeout_ms);
			return -1;
		}
		r = recv(fd, q, n, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "verbs_echo: the peer closed the connection\n");
			return -1;
		}
		q += r;
		n -= (size_t)r;
	}
	return 0;
}
