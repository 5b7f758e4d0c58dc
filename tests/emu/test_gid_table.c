// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The GID table through libibverbs 44's sysfs path (ibv_query_gid_ex,
 * ibv_query_gid_table) and the sysfs files behind it, on every port:
 * run as
 *
 *	mlx4emu-run --ports=N --link-layer=LL --addr=A1[,A2] --ifname=I1[,I2]
 *		-- test_emu_gid_table A1[,A2] I1[,I2]
 *
 * The valid entries are worked out here from each port's address
 * (emu/README.md, "Addresses"): InfiniBand GID 0 fe80::0002:c90P:<address>,
 * type IB, no interface; Ethernet GID 0 fe80::<EUI-64 of 02:c9:<address>>
 * RoCE v1 and GID 1 ::ffff:<address> RoCE v2, both on the port's
 * interface.  Every other index of the table is empty: ibv_query_gid_ex
 * fails with ENODATA, gids/I is zero and reading gid_attrs/types/I or
 * ndevs/I fails with EINVAL (pread and copy_file_range too), as on a
 * ConnectX-3 under Linux 6.x.
 */
#include "emu_test.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test_exit.h"

#define MAX_PORTS 2
#define PORT_DIR "class/infiniband/mlx4_0/ports"

struct port_want {
	uint32_t addr;		/* host order */
	char ifname[IF_NAMESIZE];
	bool eth;
	uint32_t tbl_len;
};

static struct port_want want[MAX_PORTS + 1];
static unsigned nports;
static struct ibv_context *ctx;

/* Whether entry (port, index) is valid, and its GID, type and interface. */
static bool want_entry(unsigned port, unsigned index, struct ibv_gid_entry *e)
{
	const struct port_want *w = &want[port];
	uint32_t a = w->addr;

	memset(e, 0, sizeof(*e));
	e->port_num = port;
	e->gid_index = index;
	if (index > (w->eth ? 1u : 0u))
		return false;
	if (w->eth)
		e->ndev_ifindex = if_nametoindex(w->ifname);
	if (index == 1) {
		e->gid.raw[10] = e->gid.raw[11] = 0xff;
		e->gid.raw[12] = (uint8_t)(a >> 24);
		e->gid.raw[13] = (uint8_t)(a >> 16);
		e->gid.raw[14] = (uint8_t)(a >> 8);
		e->gid.raw[15] = (uint8_t)a;
		e->gid_type = IBV_GID_TYPE_ROCE_V2;
		return true;
	}
	e->gid.raw[0] = 0xfe;
	e->gid.raw[1] = 0x80;
	if (w->eth) {
		/* MAC 02:c9:a:b:c:d, the universal/local bit flipped */
		const uint8_t eui[8] = { 0x00, 0xc9, (uint8_t)(a >> 24), 0xff, 0xfe,
					 (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a };

		memcpy(e->gid.raw + 8, eui, 8);
		e->gid_type = IBV_GID_TYPE_ROCE_V1;
		return true;
	}
	e->gid.raw[8] = 0x00;
	e->gid.raw[9] = 0x02;
	e->gid.raw[10] = 0xc9;
	e->gid.raw[11] = (uint8_t)(0x00 + port);
	e->gid.raw[12] = (uint8_t)(a >> 24);
	e->gid.raw[13] = (uint8_t)(a >> 16);
	e->gid.raw[14] = (uint8_t)(a >> 8);
	e->gid.raw[15] = (uint8_t)a;
	e->gid_type = IBV_GID_TYPE_IB;
	return true;
}

static void assert_entry_equal(const struct ibv_gid_entry *got,
			       const struct ibv_gid_entry *exp)
{
	assert_memory_equal(got->gid.raw, exp->gid.raw, 16);
	assert_int_equal(got->gid_index, exp->gid_index);
	assert_int_equal(got->port_num, exp->port_num);
	assert_int_equal(got->gid_type, exp->gid_type);
	assert_int_equal(got->ndev_ifindex, exp->ndev_ifindex);
}

/* Every index: the valid ones as worked out, ENODATA for the others (the
 * legacy ibv_query_gid then gives a zero GID). */
static void query_gid_ex(void **state)
{
	(void)state;
	for (unsigned p = 1; p <= nports; p++) {
		unsigned valid = 0;

		for (unsigned i = 0; i < want[p].tbl_len; i++) {
			struct ibv_gid_entry got, exp;
			bool ok = want_entry(p, i, &exp);
			int ret = ibv_query_gid_ex(ctx, p, i, &got, 0);

			if (!ok) {
				union ibv_gid gid;

				assert_int_equal(ret, ENODATA);
				assert_int_equal(ibv_query_gid(ctx, (uint8_t)p, (int)i, &gid), 0);
				assert_memory_equal(gid.raw, exp.gid.raw, 16);
				continue;
			}
			assert_int_equal(ret, 0);
			assert_entry_equal(&got, &exp);
			if (want[p].eth)
				assert_int_not_equal(got.ndev_ifindex, 0);
			valid++;
		}
		assert_int_equal(valid, want[p].eth ? 2 : 1);
	}
}

/* The whole table: the valid entries of every port in port and index
 * order, each what ibv_query_gid_ex says of its index; EINVAL when the
 * array is one short. */
static void query_gid_table(void **state)
{
	struct ibv_gid_entry table[8], one;
	unsigned total = 0, n = 0;
	ssize_t got;

	(void)state;
	for (unsigned p = 1; p <= nports; p++)
		total += want[p].eth ? 2 : 1;
	got = ibv_query_gid_table(ctx, table, 8, 0);
	assert_int_equal(got, total);
	for (unsigned p = 1; p <= nports; p++) {
		for (unsigned i = 0; i < want[p].tbl_len; i++) {
			struct ibv_gid_entry exp;

			if (!want_entry(p, i, &exp))
				continue;
			assert_true(n < total);
			assert_entry_equal(&table[n], &exp);
			assert_int_equal(ibv_query_gid_ex(ctx, p, i, &one, 0), 0);
			assert_entry_equal(&table[n], &one);
			n++;
		}
	}
	assert_int_equal(n, total);
	assert_int_equal(ibv_query_gid_table(ctx, table, total, 0), total);
	assert_int_equal(ibv_query_gid_table(ctx, table, total - 1, 0), -EINVAL);
}

/* read() of root/rel: its length and text, or -1 and errno. */
static ssize_t read_attr(const char *rel, char *out, size_t len, int *err)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", getenv("SYSFS_PATH"), rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	errno = 0;
	n = read(fd, out, len - 1);
	*err = errno;
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	return n;
}

static void expect_text(const char *rel, const char *text)
{
	char got[128];
	int err;

	assert_true(read_attr(rel, got, sizeof(got), &err) > 0);
	assert_string_equal(got, text);
}

/* read() fails with EINVAL, and so do pread() and copy_file_range(). */
static void expect_einval(const char *rel)
{
	char got[128], path[512];
	int err, fd, out;

	assert_int_equal(read_attr(rel, got, sizeof(got), &err), -1);
	assert_int_equal(err, EINVAL);
	snprintf(path, sizeof(path), "%s/%s", getenv("SYSFS_PATH"), rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	errno = 0;
	assert_int_equal(pread(fd, got, sizeof(got), 0), -1);
	assert_int_equal(errno, EINVAL);
	out = memfd_create("gid_attr", MFD_CLOEXEC);
	assert_true(out >= 0);
	errno = 0;
	assert_int_equal(copy_file_range(fd, NULL, out, NULL, sizeof(got), 0), -1);
	assert_int_equal(errno, EINVAL);
	close(out);
	close(fd);
}

/* The files behind the table: one per index in each folder, the empty
 * entries' attributes unreadable, and the interface under the PCI
 * function as mlx4_en places it. */
static void sysfs_files(void **state)
{
	(void)state;
	for (unsigned p = 1; p <= nports; p++) {
		for (unsigned i = 0; i < want[p].tbl_len; i++) {
			struct ibv_gid_entry exp;
			bool ok = want_entry(p, i, &exp);
			char rel[128], text[64];
			const uint8_t *g = exp.gid.raw;

			snprintf(text, sizeof(text),
				 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
				 "%02x%02x:%02x%02x\n", g[0], g[1], g[2], g[3], g[4], g[5],
				 g[6], g[7], g[8], g[9], g[10], g[11], g[12], g[13], g[14],
				 g[15]);
			snprintf(rel, sizeof(rel), PORT_DIR "/%u/gids/%u", p, i);
			expect_text(rel, text);
			snprintf(rel, sizeof(rel), PORT_DIR "/%u/gid_attrs/types/%u", p, i);
			if (ok)
				expect_text(rel, exp.gid_type == IBV_GID_TYPE_ROCE_V2 ?
					    "RoCE v2\n" : "IB/RoCE v1\n");
			else
				expect_einval(rel);
			snprintf(rel, sizeof(rel), PORT_DIR "/%u/gid_attrs/ndevs/%u", p, i);
			if (ok && want[p].eth) {
				snprintf(text, sizeof(text), "%s\n", want[p].ifname);
				expect_text(rel, text);
			} else {
				expect_einval(rel);
			}
		}
		if (want[p].eth) {
			char path[512];
			struct stat st;

			snprintf(path, sizeof(path), "%s/class/infiniband/mlx4_0/device/net/%s",
				 getenv("SYSFS_PATH"), want[p].ifname);
			assert_int_equal(stat(path, &st), 0);
			assert_true(S_ISDIR(st.st_mode));
		}
	}
}

static int setup(void **state)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr attr;

	(void)state;
	assert_non_null(list);
	assert_non_null(list[0]);
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	assert_non_null(ctx);
	assert_int_equal(ibv_query_device(ctx, &attr), 0);
	assert_int_equal(attr.phys_port_cnt, nports);
	for (unsigned p = 1; p <= nports; p++) {
		struct ibv_port_attr pa;

		assert_int_equal(ibv_query_port(ctx, (uint8_t)p, &pa), 0);
		want[p].eth = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
		want[p].tbl_len = (uint32_t)pa.gid_tbl_len;
		assert_int_equal(want[p].tbl_len, 128);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return ibv_close_device(ctx);
}

/* "a[,b]" into up to MAX_PORTS items (of at most IF_NAMESIZE - 1 characters). */
static unsigned split(const char *list, char items[][IF_NAMESIZE])
{
	char copy[128], *save = NULL;
	unsigned n = 0;

	snprintf(copy, sizeof(copy), "%s", list);
	for (char *t = strtok_r(copy, ",", &save); t && n < MAX_PORTS;
	     t = strtok_r(NULL, ",", &save))
		snprintf(items[n++], IF_NAMESIZE, "%.*s", IF_NAMESIZE - 1, t);
	return n;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(query_gid_ex),
		cmocka_unit_test(query_gid_table),
		cmocka_unit_test(sysfs_files),
	};
	char addrs[MAX_PORTS][IF_NAMESIZE], names[MAX_PORTS][IF_NAMESIZE];
	unsigned nnames;

	if (argc != 3) {
		fprintf(stderr, "usage: %s ADDR[,ADDR] IFNAME[,IFNAME]\n", argv[0]);
		return T_EXIT_FAIL;
	}
	nports = split(argv[1], addrs);
	nnames = split(argv[2], names);
	for (unsigned p = 1; p <= nports; p++) {
		struct in_addr in;

		if (inet_pton(AF_INET, addrs[p - 1], &in) != 1 || p > nnames) {
			fprintf(stderr, "bad address or missing name for port %u\n", p);
			return T_EXIT_FAIL;
		}
		want[p].addr = ntohl(in.s_addr);
		memcpy(want[p].ifname, names[p - 1], sizeof(want[p].ifname));
	}
	t_run_group_tests(tests, setup, teardown);
	return t_exit();
}
