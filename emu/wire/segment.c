// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* The adapters of the wire segment (see segment.h). */
#include "wire/segment.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/libc.h"
#include "wire/identity.h"

#define REFRESH_NS (100ull * 1000000ull)
#define TREE_PREFIX "mlx4emu."
#define LOCK_SUFFIX ".lock"

static char base_dir[4096];
static char own_name[256];
static struct emu_peer peers[EMU_SEGMENT_MAX_PEERS];
static unsigned npeers;
static uint64_t read_at_ns;
static bool read_once;

void emu_segment_describe(char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "segment %u\n", emu_cfg.wire_segment);

	for (unsigned p = 1; p <= emu_cfg.ports && n < len; p++) {
		uint32_t a = emu_port_addr(p);

		n += (size_t)snprintf(buf + n, len - n, "port %u %s %u.%u.%u.%u\n", p,
				      emu_cfg.link_layer[p - 1] == EMU_LL_ETH ? "eth" : "ib",
				      a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
	}
}

void emu_segment_init(const char *base, const char *own)
{
	snprintf(base_dir, sizeof(base_dir), "%s", base);
	snprintf(own_name, sizeof(own_name), "%s", own);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void add_peer(uint32_t addr, uint8_t link_layer)
{
	if (!addr || emu_addr_is_self(addr) || npeers == EMU_SEGMENT_MAX_PEERS)
		return;
	for (unsigned i = 0; i < npeers; i++)
		if (peers[i].addr == addr)
			return;
	peers[npeers++] = (struct emu_peer){ addr, link_layer };
}

/* A tree whose lock can be taken belongs to no live process. */
static bool tree_alive(int dirfd, const char *name)
{
	char lock[300];
	bool alive;
	int fd;

	if ((size_t)snprintf(lock, sizeof(lock), "%s" LOCK_SUFFIX, name) >= sizeof(lock))
		return false;
	fd = emu_real_openat(dirfd, lock, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return false;
	alive = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	emu_real_close(fd);	/* also drops a lock it did take */
	return alive;
}

/* The ports a published description lists, when it is of our segment. */
static void parse_description(char *text)
{
	unsigned segment = 0, port, a, b, c, d;
	char ll[4], *save = NULL;
	char *line = strtok_r(text, "\n", &save);

	if (!line || sscanf(line, "segment %u", &segment) != 1 ||
	    segment != emu_cfg.wire_segment)
		return;
	while ((line = strtok_r(NULL, "\n", &save)))
		if (sscanf(line, "port %u %3s %u.%u.%u.%u", &port, ll, &a, &b, &c, &d) == 6 &&
		    a < 256 && b < 256 && c < 256 && d < 256)
			add_peer(a << 24 | b << 16 | c << 8 | d,
				 !strcmp(ll, "eth") ? EMU_LL_ETH : EMU_LL_IB);
}

static void read_tree(int dirfd, const char *name)
{
	char path[300], text[512];
	ssize_t n;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/" EMU_SEGMENT_FILE, name) >= sizeof(path))
		return;
	fd = emu_real_openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return;
	n = emu_real_read(fd, text, sizeof(text) - 1);
	emu_real_close(fd);
	if (n <= 0)
		return;
	text[n] = '\0';
	parse_description(text);
}

static bool is_tree_name(const char *name)
{
	size_t n = strlen(name), s = strlen(LOCK_SUFFIX);

	return !strncmp(name, TREE_PREFIX, strlen(TREE_PREFIX)) &&
	       !(n > s && !strcmp(name + n - s, LOCK_SUFFIX)) && strcmp(name, own_name);
}

static void read_peers(void)
{
	DIR *dir = base_dir[0] ? opendir(base_dir) : NULL;
	struct dirent *e;

	npeers = 0;
	for (unsigned i = 0; i < emu_cfg.nlid_map; i++)
		add_peer(emu_cfg.lid_map[i].addr, 0);
	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (is_tree_name(e->d_name) && tree_alive(dirfd(dir), e->d_name))
			read_tree(dirfd(dir), e->d_name);
	closedir(dir);
}

unsigned emu_segment_peers(const struct emu_peer **out)
{
	uint64_t now;

	*out = peers;
	if (!emu_cfg.wire_segment)
		return 0;
	now = now_ns();
	if (!read_once || now - read_at_ns > REFRESH_NS) {
		read_peers();
		read_at_ns = now;
		read_once = true;
	}
	return npeers;
}
