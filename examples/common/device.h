/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Opening an mlx4 device: the one named with -d, or the first device
 * libmlx4 drives. One context and one protection domain per process; the
 * endpoints of a program share them.
 */
#ifndef MLX4DV_EXAMPLE_DEVICE_H
#define MLX4DV_EXAMPLE_DEVICE_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "options.h"

struct ex_device {
	struct ibv_context	*ctx;
	struct ibv_pd		*pd;
	char			name[IBV_SYSFS_NAME_MAX];
	struct ibv_device_attr	attr;
	struct ibv_port_attr	port_attr;
	uint8_t			port;
	/* GRH: forced on Ethernet (RoCE), or asked for with -g. */
	bool			use_grh;
	uint8_t			gid_index;
	union ibv_gid		gid;
};

/*
 * True when the device is one libmlx4 drives: its sysfs modalias names a
 * Mellanox (0x15b3) ConnectX-3 family PCI function (rdma-core
 * providers/mlx4/mlx4.c hca_table), or, when sysfs has no modalias, its
 * name is the mlx4_ib default "mlx4_N".
 */
bool ex_device_is_mlx4(struct ibv_device *device);

/*
 * Opens the device, queries it and the port, reads the GID, allocates a
 * PD. Prints what went wrong (naming prog) and returns -1 on failure;
 * when no mlx4 device exists, the message says how to run the program on
 * the software ConnectX-3.
 */
int ex_device_open(struct ex_device *dev, const struct ex_options *opts,
		   const char *prog);

/* The start of main(): ex_parse_main(), then ex_device_open() of dev for
 * prog. EX_MAIN_RUN when the program is to run with dev open; otherwise
 * the status main() returns (0 after --help, 2 after a usage message, 1
 * when the device does not open). */
int ex_main_start(const struct ex_program *prog, int argc, char **argv,
		  struct ex_options *opts, struct ex_device *dev);

void ex_device_close(struct ex_device *dev);

/* The end of main(): closes dev, reports "<prog>: FAILED" on stderr when
 * status is not 0, and returns status. */
int ex_device_finish(struct ex_device *dev, const char *prog, int status);

/* True when the port's link layer is Ethernet. */
bool ex_device_is_ethernet(const struct ex_device *dev);

/*
 * The port MAC, from the link-local GID of an Ethernet port (modified
 * EUI-64: the inverse of the RoCE GID derivation). -1 when the GID is not
 * link-local.
 */
int ex_device_mac(const struct ex_device *dev, uint8_t mac[6]);

#endif /* MLX4DV_EXAMPLE_DEVICE_H */
