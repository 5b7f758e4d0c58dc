// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Which devices libmlx4 drives: the PCI IDs and the one VMBus modalias of
 * rdma-core 44.0 providers/mlx4/mlx4.c (hca_table). libibverbs hands a
 * device to the provider whose table matches its sysfs modalias, so the
 * same test here tells whether an ibv_context is libmlx4's without reading
 * anything behind the context pointer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define PCI_VENDOR_MELLANOX 0x15b3u

static const uint16_t mlx4_pci_devices[] = {
	0x6340, 0x634a, 0x6354, 0x6732, 0x673c,	/* MT25408 ConnectX */
	0x6368, 0x6750, 0x6372, 0x675a, 0x6764,	/* ConnectX EN */
	0x6746, 0x676e,				/* ConnectX-2 EN */
	0x1002,					/* ConnectX-2 VF */
	0x1003, 0x1004,				/* ConnectX-3, its VF */
	0x1005, 0x1006, 0x1007, 0x1008,		/* ConnectX-3 Pro family */
	0x1009, 0x100a, 0x100b, 0x100c,
	0x100d, 0x100e, 0x100f, 0x1010,
};

/* Azure Network Direct: an mlx4 function behind Hyper-V's VMBus. */
static const char mlx4_vmbus_modalias[] =
	"vmbus:3daf2e8ca732094bab99bd1f1c86b501";

/* Parses 8 hex digits; false unless all 8 are hex digits. */
static bool parse_hex8(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 8; i++) {
		char c = s[i];
		uint32_t d;

		if (c >= '0' && c <= '9')
			d = (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (uint32_t)(c - 'A' + 10);
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

bool mlx4dv_priv_modalias_is_mlx4(const char *modalias)
{
	uint32_t vendor, device;
	size_t n;

	if (!modalias)
		return false;
	n = strlen(mlx4_vmbus_modalias);
	if (!strncmp(modalias, mlx4_vmbus_modalias, n) &&
	    (modalias[n] == '\0' || modalias[n] == '\n'))
		return true;

	/* pci:vVVVVVVVVdDDDDDDDDsv... */
	if (strncmp(modalias, "pci:v", 5) || strlen(modalias) < 22)
		return false;
	if (!parse_hex8(modalias + 5, &vendor) || modalias[13] != 'd' ||
	    !parse_hex8(modalias + 14, &device))
		return false;
	if (vendor != PCI_VENDOR_MELLANOX)
		return false;
	for (size_t i = 0; i < sizeof(mlx4_pci_devices) /
			       sizeof(mlx4_pci_devices[0]); i++)
		if (device == mlx4_pci_devices[i])
			return true;
	return false;
}

int mlx4dv_priv_read_modalias(const struct ibv_device *device, char *buf,
			 size_t len)
{
	char path[sizeof(device->ibdev_path) + 32];
	ssize_t got;
	int fd;

	if (len < 2)
		return EINVAL;
	/* ibdev_path is a fixed array; never trust it to be terminated. */
	if (!memchr(device->ibdev_path, '\0', sizeof(device->ibdev_path)) ||
	    device->ibdev_path[0] == '\0')
		return ENODEV;
	snprintf(path, sizeof(path), "%s/device/modalias", device->ibdev_path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ENODEV;
	got = read(fd, buf, len - 1);
	close(fd);
	if (got <= 0)
		return ENODEV;
	buf[got] = '\0';
	return 0;
}
