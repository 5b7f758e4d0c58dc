// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Objects of a device libmlx4 does not drive are refused with
 * EPROTONOSUPPORT before anything behind the context is used. The fake
 * contexts below have no operations at all (every ops pointer NULL) and no
 * libmlx4 structure around them: touching them beyond ->device would
 * crash the test.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/mlx4dv.h>

#include "internal.h"
#include "test_exit.h"

struct fake {
	char dir[64];
	struct ibv_device device;
	struct ibv_context context;
	struct ibv_qp qp;
	struct ibv_cq cq;
	struct ibv_srq srq;
	struct ibv_wq wq;
};

/* A sysfs-like device directory with the given modalias (NULL: none). */
static struct fake *fake_new(const char *modalias, enum ibv_node_type node,
			     enum ibv_transport_type transport)
{
	struct fake *f = calloc(1, sizeof(*f));
	char path[128];
	FILE *fp;

	assert_non_null(f);
	strcpy(f->dir, "/tmp/mlx4dv-foreign-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(path, sizeof(path), "%s/device", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	if (modalias) {
		snprintf(path, sizeof(path), "%s/device/modalias", f->dir);
		fp = fopen(path, "w");
		assert_non_null(fp);
		fprintf(fp, "%s\n", modalias);
		fclose(fp);
	}
	f->device.node_type = node;
	f->device.transport_type = transport;
	strcpy(f->device.name, "fake0");
	snprintf(f->device.ibdev_path, sizeof(f->device.ibdev_path), "%s",
		 f->dir);
	f->context.device = &f->device;
	f->context.cmd_fd = -1;
	f->context.async_fd = -1;
	f->qp.context = &f->context;
	f->qp.qp_type = IBV_QPT_RC;
	f->qp.qp_num = 0x48;
	f->cq.context = &f->context;
	f->srq.context = &f->context;
	f->wq.context = &f->context;
	f->wq.wq_type = IBV_WQT_RQ;
	return f;
}

static void fake_free(struct fake *f)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/device/modalias", f->dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/device", f->dir);
	rmdir(path);
	rmdir(f->dir);
	free(f);
}

/* Every entry point refuses with want and leaves its output untouched. */
static void expect_refused(struct fake *f, int want)
{
	struct mlx4dv_sq_ring sq, sq_ref;
	struct mlx4dv_rq_ring rq, rq_ref;
	struct mlx4dv_srq_ring srq, srq_ref;
	struct mlx4dv_cq_ring cq, cq_ref;
	struct mlx4dv_qp_rings rings, rings_ref;

	memset(&sq, 0x5a, sizeof(sq));
	memset(&rq, 0x5a, sizeof(rq));
	memset(&srq, 0x5a, sizeof(srq));
	memset(&cq, 0x5a, sizeof(cq));
	memset(&rings, 0x5a, sizeof(rings));
	sq_ref = sq;
	rq_ref = rq;
	srq_ref = srq;
	cq_ref = cq;
	rings_ref = rings;

	/* Twice: the second answer comes from the per-context cache. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(mlx4dv_sq_ring_init(&sq, &f->qp,
				 MLX4DV_RING_INIT_WRID | MLX4DV_RING_INIT_BLUEFLAME), want);
		assert_int_equal(mlx4dv_rq_ring_init(&rq, &f->qp, 0), want);
		assert_int_equal(mlx4dv_wq_ring_init(&rq, &f->wq, 0), want);
		assert_int_equal(mlx4dv_srq_ring_init(&srq, &f->srq, 0), want);
		assert_int_equal(mlx4dv_cq_ring_init(&cq, &f->cq, 0), want);
		assert_int_equal(mlx4dv_qp_rings_init(&rings, &f->qp, 0), want);
		assert_int_equal(mlx4dv_set_blueflame_layout(&f->context, 512, 8), want);
	}
	assert_memory_equal(&sq, &sq_ref, sizeof(sq));
	assert_memory_equal(&rq, &rq_ref, sizeof(rq));
	assert_memory_equal(&srq, &srq_ref, sizeof(srq));
	assert_memory_equal(&cq, &cq_ref, sizeof(cq));
	assert_memory_equal(&rings, &rings_ref, sizeof(rings));
}

static void intel_nic_refused(void **state)
{
	struct fake *f = fake_new("pci:v00008086d000037D2sv00008086sd00000001bc02sc00i00",
				  IBV_NODE_CA, IBV_TRANSPORT_IB);

	(void)state;
	expect_refused(f, EPROTONOSUPPORT);
	fake_free(f);
}

static void connectx4_refused(void **state)
{
	/* Mellanox, but mlx5's device 0x1013: not libmlx4's. */
	struct fake *f = fake_new("pci:v000015B3d00001013sv000015B3sd00000003bc02sc00i00",
				  IBV_NODE_CA, IBV_TRANSPORT_IB);

	(void)state;
	expect_refused(f, EPROTONOSUPPORT);
	fake_free(f);
}

static void missing_modalias_refused(void **state)
{
	struct fake *f = fake_new(NULL, IBV_NODE_CA, IBV_TRANSPORT_IB);

	(void)state;
	expect_refused(f, EPROTONOSUPPORT);
	fake_free(f);
}

static void iwarp_node_refused(void **state)
{
	/* A ConnectX-3 modalias on an RNIC node cannot be libmlx4's. */
	struct fake *f = fake_new("pci:v000015B3d00001003sv000015B3sd00000006bc02sc80i00",
				  IBV_NODE_RNIC, IBV_TRANSPORT_IWARP);

	(void)state;
	expect_refused(f, EPROTONOSUPPORT);
	fake_free(f);
}

static void unterminated_path_refused(void **state)
{
	struct fake *f = fake_new(NULL, IBV_NODE_CA, IBV_TRANSPORT_IB);

	(void)state;
	memset(f->device.ibdev_path, 'a', sizeof(f->device.ibdev_path));
	expect_refused(f, EPROTONOSUPPORT);
	fake_free(f);
}

static void null_device_is_einval(void **state)
{
	struct fake *f = fake_new(NULL, IBV_NODE_CA, IBV_TRANSPORT_IB);
	struct mlx4dv_cq_ring cq;

	(void)state;
	f->context.device = NULL;
	assert_int_equal(mlx4dv_cq_ring_init(&cq, &f->cq, 0), EINVAL);
	f->cq.context = NULL;
	assert_int_equal(mlx4dv_cq_ring_init(&cq, &f->cq, 0), EINVAL);
	fake_free(f);
}

/* The table of rdma-core 44.0 providers/mlx4/mlx4.c, typed in again. */
static void modalias_table(void **state)
{
	static const char *const yes[] = {
		"pci:v000015B3d00001003sv000015B3sd00000006bc02sc80i00",
		"pci:v000015b3d00001007sv000015B3sd00000006bc02sc80i00",
		"pci:v000015B3d00001004sv*",
		"pci:v000015B3d00001010sv000015B3sd00000006bc02sc80i00",
		"pci:v000015B3d0000673Csv000015B3sd00000006bc02sc80i00",
		"pci:v000015B3d00006340sv000015B3sd00000006bc02sc80i00",
		"vmbus:3daf2e8ca732094bab99bd1f1c86b501",
		"vmbus:3daf2e8ca732094bab99bd1f1c86b501\n",
	};
	static const char *const no[] = {
		"",
		"pci:",
		"pci:v000015B3d0000100",
		"pci:v000015B3d00001011sv000015B3sd00000006bc02sc80i00",
		"pci:v000015B3d00001013sv000015B3sd00000006bc02sc80i00",
		"pci:v000015B3d00001017sv000015B3sd00000006bc02sc80i00",
		"pci:v00008086d00001003sv00008086sd00000006bc02sc80i00",
		"pci:v000015B3x00001003sv000015B3sd00000006bc02sc80i00",
		"pci:v000015G3d00001003sv000015B3sd00000006bc02sc80i00",
		"vmbus:3daf2e8ca732094bab99bd1f1c86b502",
		"vmbus:3daf2e8ca732094bab99bd1f1c86b501x",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(mlx4dv_priv_modalias_is_mlx4(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(mlx4dv_priv_modalias_is_mlx4(no[i]));
	assert_false(mlx4dv_priv_modalias_is_mlx4(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intel_nic_refused),
		cmocka_unit_test(connectx4_refused),
		cmocka_unit_test(missing_modalias_refused),
		cmocka_unit_test(iwarp_node_refused),
		cmocka_unit_test(unterminated_path_refused),
		cmocka_unit_test(null_device_is_einval),
		cmocka_unit_test(modalias_table),
	};

	t_run_group_tests_name("unit_foreign", tests, NULL, NULL);
	return t_exit();
}
