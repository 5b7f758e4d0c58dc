// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * cm_loop -s ADDR -p PORT            server
 * cm_loop -c ADDR -p PORT -n COUNT   client
 *
 * COUNT rdma_cm connections set up and torn down one after the other
 * between two processes: each connection carries one SEND each way (its
 * bytes checked), then the client disconnects and both destroy their QP
 * and id.  Beside them each process keeps an RC QP pair of its own made
 * with verbs alone (no rdma_cm), which carries one SEND per connection,
 * so that a program mixing the two is checked too.  At the end the
 * client compares its open descriptors and allocated memory with those
 * after the first connection: a leak of ids, QPs, files or memory per
 * connection shows as growth (beyond what as many verbs-only QPs cost,
 * qp_churn_growth(), at most 64 KiB of allocator slack).  It prints the set-up time of each connection
 * (rdma_connect to ESTABLISHED) as a median and a 90th percentile, and
 * for comparison the time of a TCP connect with a 64-byte exchange each
 * way, what programs with their own TCP exchange do instead.  Exit 0
 * when every connection worked and nothing grew.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <malloc.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define MSG 64

static int die(const char *what)
{
	fprintf(stderr, "FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, rss = 0;

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
			rss = 0;
		fclose(f);
	}
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

/* One SEND of MSG bytes each way on a connected id (rdma_verbs.h). */
static void exchange(struct rdma_cm_id *id, bool first, unsigned n)
{
	char out[MSG], in[MSG];
	struct ibv_mr *mo = rdma_reg_msgs(id, out, MSG), *mi = rdma_reg_msgs(id, in, MSG);
	struct ibv_wc wc;

	if (!mo || !mi)
		die("rdma_reg_msgs");
	memset(out, 'a' + n % 26, MSG);
	if (rdma_post_recv(id, NULL, in, MSG, mi))
		die("rdma_post_recv");
	if (!first && rdma_get_recv_comp(id, &wc) <= 0)
		die("rdma_get_recv_comp");
	if (rdma_post_send(id, NULL, out, MSG, mo, IBV_SEND_SIGNALED) ||
	    rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS)
		die("rdma_post_send");
	if (first && rdma_get_recv_comp(id, &wc) <= 0)
		die("rdma_get_recv_comp");
	if (wc.status != IBV_WC_SUCCESS || memcmp(in, out, MSG)) {
		fprintf(stderr, "FAIL: connection %u: bad data or status %d\n", n, wc.status);
		exit(1);
	}
	rdma_dereg_mr(mo);
	rdma_dereg_mr(mi);
}

/* The verbs-only pair: two RC QPs of this process connected to each other. */
struct plain_pair {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	char buf[2][MSG];
};

static void plain_connect(struct plain_pair *p)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;

	if (!list || !list[0] || !(p->ctx = ibv_open_device(list[0])))
		die("ibv_open_device");
	ibv_free_device_list(list);
	p->pd = ibv_alloc_pd(p->ctx);
	p->cq = ibv_create_cq(p->ctx, 16, NULL, NULL, 0);
	p->mr = p->pd ? ibv_reg_mr(p->pd, p->buf, sizeof(p->buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!p->cq || !p->mr || ibv_query_port(p->ctx, 1, &pa))
		die("verbs pair resources");
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_init_attr a = {
			.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		};

		if (!(p->qp[i] = ibv_create_qp(p->pd, &a)))
			die("ibv_create_qp");
	}
	for (int i = 0; i < 2; i++) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

		if (ibv_modify_qp(p->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						 IBV_QP_ACCESS_FLAGS))
			die("INIT");
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
					  .dest_qp_num = p->qp[1 - i]->qp_num, .rq_psn = 1,
					  .max_dest_rd_atomic = 1, .min_rnr_timer = 12 };
		a.ah_attr.port_num = 1;
		a.ah_attr.dlid = pa.lid;
		if (pa.link_layer == IBV_LINK_LAYER_ETHERNET) {
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.sgid_index = 1;
			a.ah_attr.grh.hop_limit = 64;
			ibv_query_gid(p->ctx, 1, 1, &a.ah_attr.grh.dgid);
		}
		if (ibv_modify_qp(p->qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
			die("RTR");
		a = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS, .sq_psn = 1, .timeout = 14,
					  .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1 };
		if (ibv_modify_qp(p->qp[i], &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
						 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
						 IBV_QP_MAX_QP_RD_ATOMIC))
			die("RTS");
	}
}

static void plain_ping(struct plain_pair *p, unsigned n)
{
	struct ibv_sge s = { (uintptr_t)p->buf[0], MSG, p->mr->lkey };
	struct ibv_sge r = { (uintptr_t)p->buf[1], MSG, p->mr->lkey };
	struct ibv_send_wr sw = { .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bs;
	struct ibv_recv_wr rw = { .sg_list = &r, .num_sge = 1 }, *br;
	struct ibv_wc wc;
	int got = 0;
	double t0 = now_us();

	memset(p->buf[0], 'A' + n % 26, MSG);
	memset(p->buf[1], 0, MSG);
	if (ibv_post_recv(p->qp[1], &rw, &br) || ibv_post_send(p->qp[0], &sw, &bs))
		die("verbs pair post");
	while (got < 2 && now_us() - t0 < 10e6) {
		int k = ibv_poll_cq(p->cq, 1, &wc);

		if (k > 0 && wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "FAIL: verbs pair: status %d\n", wc.status);
			exit(1);
		}
		got += k > 0;
	}
	if (got < 2 || memcmp(p->buf[0], p->buf[1], MSG)) {
		fprintf(stderr, "FAIL: verbs pair: message %u lost or wrong\n", n);
		exit(1);
	}
}

/*
 * What `count` QPs made and destroyed with verbs alone add to the heap:
 * the device keeps the object of every QP number it has handed out (and
 * hands numbers out in rotation, as mlx4's bitmap does), so each
 * connection's new QPN costs that much once; the connections may add
 * nothing beyond it.
 */
static size_t qp_churn_growth(struct plain_pair *p, unsigned count)
{
	size_t h0 = mallinfo2().uordblks;

	for (unsigned n = 0; n < count; n++) {
		struct ibv_qp_init_attr a = {
			.send_cq = p->cq, .recv_cq = p->cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		};
		struct ibv_qp *qp = ibv_create_qp(p->pd, &a);

		if (!qp)
			die("ibv_create_qp");
		ibv_destroy_qp(qp);
	}
	return mallinfo2().uordblks - h0;
}

static struct rdma_addrinfo *addr_of(const char *host, const char *port, bool passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(host, port, &hints, &res))
		die("rdma_getaddrinfo");
	return res;
}

static struct ibv_qp_init_attr qp_attr(void)
{
	struct ibv_qp_init_attr a = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC, .sq_sig_all = 0,
	};

	return a;
}

static int tcp_listen(const char *host, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	inet_pton(AF_INET, host, &sa.sin_addr);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || listen(s, 16))
		die("tcp listen");
	return s;
}

static void tcp_exchange(int s, bool first)
{
	char b[MSG] = { 0 };

	if (!first && recv(s, b, MSG, MSG_WAITALL) != MSG)
		die("tcp recv");
	if (send(s, b, MSG, 0) != MSG)
		die("tcp send");
	if (first && recv(s, b, MSG, MSG_WAITALL) != MSG)
		die("tcp recv");
}

/* A request's id knows both ends (rdma_get_local_addr, rdma_get_peer_addr),
 * as libfabric's verbs provider reads them for the connection's fi_info:
 * the server's own address and port, the client's address. */
static void check_request_addrs(struct rdma_cm_id *id, const char *host, const char *port)
{
	const struct sockaddr_in *l = (const struct sockaddr_in *)rdma_get_local_addr(id);
	const struct sockaddr_in *p = (const struct sockaddr_in *)rdma_get_peer_addr(id);
	struct in_addr own;

	inet_pton(AF_INET, host, &own);
	if (l->sin_family != AF_INET || l->sin_addr.s_addr != own.s_addr ||
	    ntohs(l->sin_port) != atoi(port) || p->sin_family != AF_INET || !p->sin_addr.s_addr ||
	    !p->sin_port) {
		printf("FAIL: the request's addresses: local family %u %s:%u, peer family %u\n",
		       l->sin_family, inet_ntoa(l->sin_addr), ntohs(l->sin_port), p->sin_family);
		exit(1);
	}
}

static int serve(const char *host, const char *port, unsigned count)
{
	struct rdma_addrinfo *res = addr_of(host, port, true);
	struct ibv_qp_init_attr a = qp_attr();
	struct rdma_cm_id *listen_id, *id;
	struct plain_pair plain;
	int ts = tcp_listen(host, atoi(port) + 1);

	if (rdma_create_ep(&listen_id, res, NULL, &a) || rdma_listen(listen_id, 4))
		die("rdma_listen");
	plain_connect(&plain);
	printf("listening\n");
	fflush(stdout);
	for (unsigned n = 0; n < count; n++) {
		a = qp_attr();
		if (rdma_get_request(listen_id, &id) || rdma_accept(id, NULL))
			die("rdma_accept");
		if (n == 0)
			check_request_addrs(id, host, port);
		exchange(id, false, n);
		plain_ping(&plain, n);
		if (rdma_disconnect(id) && errno != EINVAL)
			die("rdma_disconnect");
		rdma_destroy_ep(id);
	}
	for (unsigned n = 0; n < count; n++) {
		int c = accept(ts, NULL, NULL);

		if (c < 0)
			die("tcp accept");
		tcp_exchange(c, false);
		close(c);
	}
	rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(res);
	printf("server: %u connections\n", count);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int client(const char *host, const char *port, unsigned count)
{
	struct rdma_addrinfo *res = addr_of(host, port, false);
	double *setup = calloc(count, sizeof(double)), *tcp = calloc(count, sizeof(double));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(atoi(port) + 1)) };
	struct plain_pair plain;
	int fds0 = 0;
	long rss0 = 0;
	size_t heap0 = 0;

	size_t churn;

	inet_pton(AF_INET, host, &sa.sin_addr);
	plain_connect(&plain);
	churn = qp_churn_growth(&plain, count);
	for (unsigned n = 0; n < count; n++) {
		struct ibv_qp_init_attr a = qp_attr();
		struct rdma_cm_id *id;
		double t0;

		if (rdma_create_ep(&id, res, NULL, &a))
			die("rdma_create_ep");
		t0 = now_us();
		if (rdma_connect(id, NULL))
			die("rdma_connect");
		setup[n] = now_us() - t0;
		exchange(id, true, n);
		plain_ping(&plain, n);
		if (rdma_disconnect(id))
			die("rdma_disconnect");
		rdma_destroy_ep(id);
		if (n == 0) {
			fds0 = open_fds();
			rss0 = rss_kib();
			heap0 = mallinfo2().uordblks;
		}
	}
	int fds1 = open_fds();
	long rss1 = rss_kib();
	size_t heap1 = mallinfo2().uordblks;

	for (unsigned n = 0; n < count; n++) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		double t0 = now_us();

		if (connect(s, (struct sockaddr *)&sa, sizeof(sa)))
			die("tcp connect");
		tcp_exchange(s, true);
		tcp[n] = now_us() - t0;
		close(s);
	}
	qsort(setup, count, sizeof(double), cmp);
	qsort(tcp, count, sizeof(double), cmp);
	printf("| %u connections | median | 90th percentile |\n|---|---|---|\n", count);
	printf("| rdma_cm: rdma_connect to ESTABLISHED | %.0f us | %.0f us |\n", setup[count / 2],
	       setup[count * 9 / 10]);
	printf("| TCP: connect and 64 B each way | %.0f us | %.0f us |\n", tcp[count / 2],
	       tcp[count * 9 / 10]);
	printf("after the first connection: %d fds, %ld KiB resident, %zu B allocated; after the "
	       "last: %d fds, %ld KiB, %zu B; %u QPs of verbs alone: %zu B\n", fds0, rss0, heap0,
	       fds1, rss1, heap1, count, churn);
	rdma_freeaddrinfo(res);
	free(setup);
	free(tcp);
	if (fds1 != fds0 || heap1 > heap0 + churn + 64 * 1024) {
		printf("FAIL: descriptors or memory grew over the connections\n");
		return 1;
	}
	printf("PASS: %u connections, nothing left behind\n", count);
	return 0;
}

int main(int argc, char **argv)
{
	const char *host = NULL, *port = "7470";
	unsigned count = 1000;
	bool server = false;
	int c;

	while ((c = getopt(argc, argv, "s:c:p:n:")) != -1) {
		switch (c) {
		case 's':
			server = true;
			host = optarg;
			break;
		case 'c':
			host = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'n':
			count = (unsigned)atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!host || !count)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	return server ? serve(host, port, count) : client(host, port, count);
}
