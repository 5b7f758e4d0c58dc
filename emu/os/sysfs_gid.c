// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The per-index GID files of the fake sysfs (the layout is in
 * sysfs_gid.h).  Whether an attribute can be shown is decided in one
 * place, attr_errno(), both when the tree is written and when a program
 * opens one of its files: an entry the kernel cannot show gets an empty
 * file, so the folder lists every index as the kernel's does, and the
 * descriptor of that file is marked for read() to fail (base/fdtab.h).
 */
#include "os/sysfs_gid.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "adapter/attributes.h"
#include "base/config.h"
#include "os/netif.h"
#include "os/sysfs.h"
#include "wire/identity.h"

#define PORTS_DIR "class/infiniband/" EMU_IBDEV_NAME "/ports/"

enum gid_attr { GID_ATTR_TYPE, GID_ATTR_NDEV };

static bool port_is_eth(unsigned port)
{
	return emu_cfg.link_layer[port - 1] == EMU_LL_ETH;
}

/* 0 when the kernel shows attribute `attr` of the entry, else its errno:
 * an empty entry has no attributes (rdma_get_gid_attr fails), an
 * InfiniBand entry has no interface. */
static int attr_errno(unsigned port, unsigned index, enum gid_attr attr)
{
	uint8_t gid[16];
	bool v2;

	if (!emu_port_gid_entry(port, index, gid, &v2))
		return EINVAL;
	if (attr == GID_ATTR_NDEV && !port_is_eth(port))
		return EINVAL;
	return 0;
}

static void gid_text(const uint8_t gid[16], char *out, size_t len)
{
	snprintf(out, len,
		 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7],
		 gid[8], gid[9], gid[10], gid[11], gid[12], gid[13], gid[14], gid[15]);
}

/*
 * Most of a table is empty: its files hold zeros or nothing.  Creating a
 * file costs a file system far more than another name for one (0.8 ms
 * against 30 us on ext4 here, for hundreds of files per port), so the
 * first such file is written and the others are links to it.  text NULL:
 * an empty file.
 */
struct shared_file {
	char rel[128];
};

static int put_shared(const char *rel, const char *text, struct shared_file *first)
{
	if (first->rel[0] && !emu_sysfs_hardlink(rel, first->rel))
		return 0;
	snprintf(first->rel, sizeof(first->rel), "%s", rel);
	return text ? emu_sysfs_put(rel, text) : emu_sysfs_put_empty(rel);
}

/* The attribute's text, or an empty file when it cannot be shown. */
static int put_attr(unsigned port, unsigned index, enum gid_attr attr,
		    const char *text, struct shared_file *empty)
{
	char rel[128];

	snprintf(rel, sizeof(rel), PORTS_DIR "%u/gid_attrs/%s/%u", port,
		 attr == GID_ATTR_TYPE ? "types" : "ndevs", index);
	if (attr_errno(port, index, attr))
		return put_shared(rel, NULL, empty);
	return emu_sysfs_put(rel, text);
}

int emu_sysfs_gid_create(unsigned port)
{
	struct shared_file zero_gid = { "" }, empty = { "" };
	char rel[128], text[64];
	uint8_t gid[16];
	int err = 0;

	for (unsigned i = 0; i < emu_port_attr(port)->gid_tbl_len; i++) {
		bool v2, valid = emu_port_gid_entry(port, i, gid, &v2);

		gid_text(gid, text, sizeof(text));
		snprintf(rel, sizeof(rel), PORTS_DIR "%u/gids/%u", port, i);
		err |= valid ? emu_sysfs_put(rel, text) : put_shared(rel, text, &zero_gid);
		err |= put_attr(port, i, GID_ATTR_TYPE, v2 ? "RoCE v2" : "IB/RoCE v1", &empty);
		err |= put_attr(port, i, GID_ATTR_NDEV,
				port_is_eth(port) ? emu_netif_name(port) : "", &empty);
	}
	return err;
}

int emu_sysfs_read_errno(const char *path)
{
	const char *root = emu_sysfs_root();
	size_t n = strlen(root);
	unsigned port, index;
	char kind[6];
	int end = -1;

	if (!n || strncmp(path, root, n) || path[n] != '/')
		return 0;
	path += n + 1;
	if (strncmp(path, PORTS_DIR, sizeof(PORTS_DIR) - 1))
		return 0;
	path += sizeof(PORTS_DIR) - 1;
	if (sscanf(path, "%u/gid_attrs/%5[a-z]/%u%n", &port, kind, &index, &end) != 3 ||
	    end < 0 || path[end] != '\0')
		return 0;
	if (port < 1 || port > emu_cfg.ports || index >= emu_port_attr(port)->gid_tbl_len)
		return 0;
	if (!strcmp(kind, "types"))
		return attr_errno(port, index, GID_ATTR_TYPE);
	if (!strcmp(kind, "ndevs"))
		return attr_errno(port, index, GID_ATTR_NDEV);
	return 0;
}
