// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fake sysfs tree libibverbs walks (through SYSFS_PATH) to find the
 * device: class/infiniband_verbs/uverbs0 names the character device and the
 * ABI, class/infiniband/mlx4_0 carries the modalias libmlx4 matches, the
 * node GUID and the per-port state, GID and P_Key tables.
 */
#include "os/sysfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapter/attributes.h"
#include "base/config.h"
#include "os/sysfs_gid.h"
#include "os/sysfs_pci.h"
#include "os/tmptree.h"
#include "wire/identity.h"

static char sysfs_root[4096];

static int put_file(const char *content, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The directory of the entry made last: the tree is written a directory
 * at a time, so most entries need no mkdir at all. */
static char last_parent[4608];

/* Creates path's directory, and the missing ones above it down from the
 * root, trying the nearest first: one mkdir for a new directory whose
 * parent exists. */
static int make_dir_of(char *path)
{
	char *slash = strrchr(path, '/');
	int err;

	if (!slash || slash <= path + strlen(sysfs_root))
		return 0;
	*slash = '\0';
	err = mkdir(path, 0755) ? errno : 0;
	if (err == ENOENT)
		err = make_dir_of(path) ? errno : mkdir(path, 0755) ? errno : 0;
	*slash = '/';
	if (err && err != EEXIST) {
		errno = err;
		return -1;
	}
	return 0;
}

/* Creates every missing directory of path below the root. */
static int make_parents(char *path)
{
	size_t n = (size_t)(strrchr(path, '/') - path);

	if (n < sizeof(last_parent) && !strncmp(path, last_parent, n) && !last_parent[n])
		return 0;
	if (make_dir_of(path))
		return -1;
	if (n < sizeof(last_parent)) {
		memcpy(last_parent, path, n);
		last_parent[n] = '\0';
	}
	return 0;
}

/* Creates every missing directory of root/rel and writes content to it. */
static int put_file(const char *content, const char *fmt, ...)
{
	char path[4608];
	int n = snprintf(path, sizeof(path), "%s/", sysfs_root);
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(path) - (size_t)n, fmt, ap);
	va_end(ap);
	if (make_parents(path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(content, f);
	fputc('\n', f);
	return fclose(f);
}

static void guid_text(uint64_t g, char *out, size_t len)
{
	snprintf(out, len, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff,
		 (unsigned)g & 0xffff);
}

/* The port's LID and its GID table with the GIDs' attributes. */
static int put_port_identity(unsigned port)
{
	char text[64];
	int err = 0;

	snprintf(text, sizeof(text), "0x%x", emu_port_lid(port));
	err |= put_file(text, "class/infiniband/" EMU_IBDEV_NAME "/ports/%u/lid", port);
	return err | emu_sysfs_gid_create(port);
}

static int put_port(unsigned port)
{
	const char *dev = "class/infiniband/" EMU_IBDEV_NAME;
	bool eth = emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
	char text[64];
	int err = 0;

	err |= put_file("4: ACTIVE", "%s/ports/%u/state", dev, port);
	err |= put_file("5: LinkUp", "%s/ports/%u/phys_state", dev, port);
	err |= put_file(eth ? "Ethernet" : "InfiniBand", "%s/ports/%u/link_layer",
			dev, port);
	err |= put_file(eth ? "40 Gb/sec (4X QDR)" : "56 Gb/sec (4X FDR)",
			"%s/ports/%u/rate", dev, port);
	err |= put_file(eth ? "0x0" : "0x1", "%s/ports/%u/sm_lid", dev, port);
	err |= put_file("0", "%s/ports/%u/lid_mask_count", dev, port);
	err |= put_file("0", "%s/ports/%u/sm_sl", dev, port);
	err |= put_port_identity(port);
	for (unsigned i = 0; i < emu_port_attr(port)->pkey_tbl_len; i++) {
		snprintf(text, sizeof(text), "0x%04x", i == 0 ? EMU_DEFAULT_PKEY : 0);
		err |= put_file(text, "%s/ports/%u/pkeys/%u", dev, port, i);
	}
	return err;
}

int emu_sysfs_create(void)
{
	const char *dev = "class/infiniband/" EMU_IBDEV_NAME;
	char text[128];
	int err = 0;

	if (emu_tmptree_create(sysfs_root, sizeof(sysfs_root))) {
		sysfs_root[0] = '\0';
		return -1;
	}
	/* first: the class entries' device folders are links to it */
	err |= emu_sysfs_pci_create();
	err |= put_file("6", "class/infiniband_verbs/abi_version");
	/* the rdma_cm misc device (ucma ABI 4) and the IB CM's class */
	err |= put_file("4", "class/misc/rdma_cm/abi_version");
	err |= put_file("10:58", "class/misc/rdma_cm/dev");
	err |= put_file("5", "class/infiniband_cm/abi_version");
	err |= put_file(EMU_IBDEV_NAME, "class/infiniband_verbs/uverbs0/ibdev");
	err |= put_file(EMU_CDEV_MAJMIN, "class/infiniband_verbs/uverbs0/dev");
	err |= put_file("4", "class/infiniband_verbs/uverbs0/abi_version");
	err |= put_file("1: CA", "%s/node_type", dev);
	guid_text(emu_node_guid(), text, sizeof(text));
	err |= put_file(text, "%s/node_guid", dev);
	guid_text(emu_sys_image_guid(), text, sizeof(text));
	err |= put_file(text, "%s/sys_image_guid", dev);
	err |= put_file("2.42.5000", "%s/fw_ver", dev);
	snprintf(text, sizeof(text), "MT%u", emu_cfg.device_id == 0x1007 ? 4103 : 4099);
	err |= put_file(text, "%s/hca_type", dev);
	err |= put_file("1", "%s/hw_rev", dev);
	err |= put_file("MT_1090120019", "%s/board_id", dev);
	err |= put_file("mlx4emu software ConnectX-3", "%s/node_desc", dev);
	snprintf(text, sizeof(text),
		 "pci:v000015B3d%08Xsv000015B3sd00000006bc02sc80i00",
		 emu_cfg.device_id);
	err |= put_file(text, "%s/device/modalias", dev);
	err |= put_file("0x15b3", "%s/device/vendor", dev);
	snprintf(text, sizeof(text), "0x%04x", emu_cfg.device_id);
	err |= put_file(text, "%s/device/device", dev);
	for (unsigned p = 1; p <= emu_cfg.ports; p++)
		err |= put_port(p);
	if (err) {
		emu_sysfs_remove();
		return -1;
	}
	return 0;
}

const char *emu_sysfs_root(void)
{
	return sysfs_root;
}

void emu_sysfs_remove(void)
{
	if (!sysfs_root[0])
		return;
	emu_tmptree_remove();
	sysfs_root[0] = '\0';
	last_parent[0] = '\0';
}

int emu_sysfs_put(const char *rel, const char *content)
{
	return put_file(content, "%s", rel);
}

int emu_sysfs_put_empty(const char *rel)
{
	char path[4608];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", sysfs_root, rel);
	if (make_parents(path))
		return -1;
	f = fopen(path, "w");
	return f ? fclose(f) : -1;
}

int emu_sysfs_hardlink(const char *rel, const char *existing)
{
	char path[4608], from[4608];

	snprintf(path, sizeof(path), "%s/%s", sysfs_root, rel);
	snprintf(from, sizeof(from), "%s/%s", sysfs_root, existing);
	if (make_parents(path))
		return -1;
	return link(from, path);
}

int emu_sysfs_link(const char *rel, const char *target)
{
	char path[4608];

	snprintf(path, sizeof(path), "%s/%s", sysfs_root, rel);
	if (make_parents(path))
		return -1;
	return symlink(target, path);
}
