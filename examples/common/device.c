// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
#define _GNU_SOURCE
#include "device.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MELLANOX_PCI_VENDOR 0x15b3u

/* PCI device IDs of the ConnectX family libmlx4 claims (rdma-core 44.0
 * providers/mlx4/mlx4.c). */
static const unsigned mlx4_pci_devices[] = {
	0x6340, 0x634a, 0x6354, 0x6732, 0x673c, 0x6368, 0x6750, 0x6372,
	0x675a, 0x6764, 0x6746, 0x676e, 0x1002, 0x1003, 0x1004, 0x1005,
	0x1006, 0x1007, 0x1008, 0x1009, 0x100a, 0x100b, 0x100c, 0x100d,
	0x100e, 0x100f, 0x1010,
};

/* 1: mlx4, 0: another device, -1: no modalias to tell. */
static int modalias_is_mlx4(struct ibv_device *device)
{
	char path[IBV_SYSFS_PATH_MAX + 32];
	char alias[256];
	unsigned vendor, pci_device;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/device/modalias", device->ibdev_path);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fgets(alias, sizeof(alias), f) ? 1 : 0;
	fclose(f);
	if (!n)
		return -1;
	if (sscanf(alias, "pci:v%8Xd%8X", &vendor, &pci_device) != 2)
		return 0;
	if (vendor != MELLANOX_PCI_VENDOR)
		return 0;
	for (size_t i = 0; i < sizeof(mlx4_pci_devices) / sizeof(mlx4_pci_devices[0]); i++)
		if (mlx4_pci_devices[i] == pci_device)
			return 1;
	return 0;
}

bool ex_device_is_mlx4(struct ibv_device *device)
{
	int r = modalias_is_mlx4(device);

	if (r >= 0)
		return r == 1;
	return strncmp(ibv_get_device_name(device), "mlx4_", 5) == 0;
}

static struct ibv_device *pick_device(struct ibv_device **list, int n,
				      const char *name, const char *prog)
{
	for (int i = 0; i < n; i++) {
		if (name && strcmp(ibv_get_device_name(list[i]), name))
			continue;
		if (ex_device_is_mlx4(list[i]))
			return list[i];
		if (name) {
			fprintf(stderr, "%s: device %s is not an mlx4 (ConnectX-3) device\n",
				prog, name);
			return NULL;
		}
	}
	if (name)
		fprintf(stderr, "%s: device %s not found\n", prog, name);
	else
		fprintf(stderr,
			"%s: no mlx4 (ConnectX-3) device found; to run on the software ConnectX-3: mlx4emu-run %s\n",
			prog, prog);
	return NULL;
}

static int query_port_and_gid(struct ex_device *dev, const struct ex_options *opts,
			      const char *prog)
{
	int ret;

	ret = ibv_query_port(dev->ctx, dev->port, &dev->port_attr);
	if (ret) {
		fprintf(stderr, "%s: ibv_query_port(%u): %s\n", prog, dev->port,
			strerror(ret));
		return -1;
	}
	if (dev->port_attr.state != IBV_PORT_ACTIVE) {
		fprintf(stderr, "%s: port %u of %s is not active (state %s)\n", prog,
			dev->port, dev->name, ibv_port_state_str(dev->port_attr.state));
		return -1;
	}
	dev->use_grh = opts->gid_index >= 0 || ex_device_is_ethernet(dev);
	dev->gid_index = opts->gid_index >= 0 ? (uint8_t)opts->gid_index : 0;
	if (dev->gid_index >= dev->port_attr.gid_tbl_len) {
		fprintf(stderr, "%s: GID index %u is beyond the port's table (%d entries)\n",
			prog, dev->gid_index, dev->port_attr.gid_tbl_len);
		return -1;
	}
	ret = ibv_query_gid(dev->ctx, dev->port, dev->gid_index, &dev->gid);
	if (ret) {
		fprintf(stderr, "%s: ibv_query_gid(port %u, index %u) failed\n", prog,
			dev->port, dev->gid_index);
		return -1;
	}
	return 0;
}

int ex_device_open(struct ex_device *dev, const struct ex_options *opts,
		   const char *prog)
{
	struct ibv_device **list;
	struct ibv_device *device;
	int n = 0, ret;

	memset(dev, 0, sizeof(*dev));
	list = ibv_get_device_list(&n);
	if (!list && errno != ENOSYS) {
		fprintf(stderr, "%s: ibv_get_device_list: %s\n", prog, strerror(errno));
		return -1;
	}
	/* ENOSYS: the kernel has no RDMA support at all, so no device. */
	device = pick_device(list, list ? n : 0, opts->ib_devname, prog);
	if (!device) {
		if (list)
			ibv_free_device_list(list);
		return -1;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", ibv_get_device_name(device));
	dev->ctx = ibv_open_device(device);
	ibv_free_device_list(list);
	if (!dev->ctx) {
		fprintf(stderr, "%s: ibv_open_device(%s): %s\n", prog, dev->name,
			strerror(errno));
		return -1;
	}
	dev->port = opts->ib_port;
	ret = ibv_query_device(dev->ctx, &dev->attr);
	if (ret) {
		fprintf(stderr, "%s: ibv_query_device: %s\n", prog, strerror(ret));
		goto fail;
	}
	if (dev->port > dev->attr.phys_port_cnt) {
		fprintf(stderr, "%s: %s has %u port(s), port %u requested\n", prog,
			dev->name, dev->attr.phys_port_cnt, dev->port);
		goto fail;
	}
	if (query_port_and_gid(dev, opts, prog))
		goto fail;
	dev->pd = ibv_alloc_pd(dev->ctx);
	if (!dev->pd) {
		fprintf(stderr, "%s: ibv_alloc_pd: %s\n", prog, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	ibv_close_device(dev->ctx);
	dev->ctx = NULL;
	return -1;
}

int ex_main_start(const struct ex_program *prog, int argc, char **argv,
		  struct ex_options *opts, struct ex_device *dev)
{
	int status = ex_parse_main(prog, argc, argv, opts);

	if (status != EX_MAIN_RUN)
		return status;
	return ex_device_open(dev, opts, prog->name) ? 1 : EX_MAIN_RUN;
}

void ex_device_close(struct ex_device *dev)
{
	if (dev->pd)
		ibv_dealloc_pd(dev->pd);
	if (dev->ctx)
		ibv_close_device(dev->ctx);
	dev->pd = NULL;
	dev->ctx = NULL;
}

int ex_device_finish(struct ex_device *dev, const char *prog, int status)
{
	ex_device_close(dev);
	if (status)
		fprintf(stderr, "%s: FAILED\n", prog);
	return status;
}

bool ex_device_is_ethernet(const struct ex_device *dev)
{
	return dev->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
}

int ex_device_mac(const struct ex_device *dev, uint8_t mac[6])
{
	const uint8_t *g = dev->gid.raw;

	if (g[0] != 0xfe || (g[1] & 0xc0) != 0x80 || g[11] != 0xff || g[12] != 0xfe)
		return -1;
	mac[0] = g[8] ^ 0x02;
	mac[1] = g[9];
	mac[2] = g[10];
	mac[3] = g[13];
	mac[4] = g[14];
	mac[5] = g[15];
	return 0;
}
