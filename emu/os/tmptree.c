// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* Private temporary trees in a per-user directory (see tmptree.h). */
#include "os/tmptree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994	/* linux/magic.h */
#endif

#define TREE_PREFIX "mlx4emu."
#define LOCK_SUFFIX ".lock"
#define MAX_DEPTH 32	/* the sysfs tree is 7 levels deep */

static struct {
	int base_fd;		/* the base directory, held open */
	dev_t base_dev;
	ino_t base_ino;
	int parent_fd;		/* holds a per-process base, else -1 */
	char base_name[64];	/* its name in parent_fd */
	char name[64];		/* the tree's name in the base */
	int lock_fd;
} tt = { .base_fd = -1, .parent_fd = -1, .lock_fd = -1 };

static int close_keep_errno(int fd)
{
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

/* A directory of ours that nobody else may write: owner, no group/other
 * bits (fixed when it is ours, as an older version may have left 0755). */
static bool make_private(int fd, bool fix_mode)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
		return false;
	if (st.st_mode & 077)
		return fix_mode && !fchmod(fd, 0700);
	return true;
}

/* dirfd/name as a private directory, created when missing; -1 if it is
 * anything else (a link, a file, another user's directory). */
static int open_private_at(int dirfd, const char *name, bool fix_mode)
{
	int fd;

	if (mkdirat(dirfd, name, 0700) && errno != EEXIST)
		return -1;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!make_private(fd, fix_mode)) {
		close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}

static void random_suffix(char *out, size_t n)
{
	static const char set[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[16];
	struct timespec ts;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < sizeof(r); i++)
			r[i] = (unsigned char)((unsigned long)ts.tv_nsec >> (i % 4 * 8)) ^
			       (unsigned char)(getpid() >> (i % 2 * 8)) ^ (unsigned char)(i * 37);
	}
	for (size_t i = 0; i + 1 < n && i < sizeof(r); i++)
		out[i] = set[r[i] % (sizeof(set) - 1)];
	out[n - 1] = '\0';
}

/* /dev/shm when it is a tmpfs shared as /tmp is (world-writable with
 * the sticky bit), else NULL. */
static const char *shm_dir(void)
{
	struct statfs fs;
	struct stat st;

	if (statfs("/dev/shm", &fs) || fs.f_type != TMPFS_MAGIC || stat("/dev/shm", &st) ||
	    !S_ISDIR(st.st_mode) || (st.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return NULL;
	return "/dev/shm";
}

/*
 * $TMPDIR when set, else /dev/shm when it is a shared tmpfs, else /tmp;
 * chosen once per process.  A tree of some 600 entries is made and removed
 * by every process that loads the library: on a disk file system that
 * journals and discards each block (an ext4 /tmp mounted with discard,
 * as on many virtual machines) that takes twice the system time it takes
 * in memory (emu/README.md, Discovery); sysfs itself is in memory.
 */
static const char *tmp_dir(void)
{
	static const char *dir;

	if (!dir) {
		const char *tmp = getenv("TMPDIR");
		const char *shm = shm_dir();

		dir = tmp && tmp[0] == '/' ? tmp : shm ? shm : "/tmp";
	}
	return dir;
}

/* fd, just opened as dirfd/name, locked (flock) and still the directory
 * of that name. */
static bool hold_base(int dirfd, const char *name, int fd)
{
	struct stat st, now;

	return !flock(fd, LOCK_EX | LOCK_NB) && !fstat(fd, &st) &&
	       !fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) && now.st_ino == st.st_ino &&
	       now.st_dev == st.st_dev;
}

static void remove_stale_trees(int base);

/* "<shared>.XXXXXX": a per-process base of this user's. */
static bool is_private_base(const char *entry, const char *shared)
{
	size_t n = strlen(shared);

	return !strncmp(entry, shared, n) && entry[n] == '.' && strlen(entry + n + 1) == 6;
}

/* A directory stream over dirfd's directory, with a descriptor of its own
 * (dirfd stays open and usable); NULL when it cannot be opened. */
static DIR *dir_stream_at(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/*
 * The per-process bases of processes that are gone (killed, or exec'd:
 * the base's lock is close-on-exec): each one's stale trees, then the
 * base itself when that left it empty.  A base whose lock is held, that
 * is not a private directory of the user's, or that changed under the
 * look, stays.
 */
static void reclaim_private_bases(int tmpfd, const char *shared)
{
	DIR *d = dir_stream_at(tmpfd);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		int base;

		if (!is_private_base(e->d_name, shared))
			continue;
		base = openat(tmpfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (base < 0)
			continue;
		if (make_private(base, false) && hold_base(tmpfd, e->d_name, base)) {
			remove_stale_trees(base);
			unlinkat(tmpfd, e->d_name, AT_REMOVEDIR);
		}
		close(base);
	}
	closedir(d);
}

/* The base directory: $XDG_RUNTIME_DIR/mlx4emu, $TMPDIR/mlx4emu-<uid>, or
 * a per-process $TMPDIR/mlx4emu-<uid>.XXXXXX; its path goes to path. */
static int open_base(char *path, size_t len)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char name[32];
	int dirfd, fd;

	if (xdg && xdg[0] == '/') {
		dirfd = open(xdg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dirfd >= 0 && make_private(dirfd, false)) {
			fd = open_private_at(dirfd, "mlx4emu", true);
			close(dirfd);
			if (fd >= 0) {
				snprintf(path, len, "%s/mlx4emu", xdg);
				return fd;
			}
		} else if (dirfd >= 0) {
			close(dirfd);
		}
	}
	dirfd = open(tmp_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	snprintf(name, sizeof(name), "mlx4emu-%lu", (unsigned long)geteuid());
	reclaim_private_bases(dirfd, name);
	fd = open_private_at(dirfd, name, true);
	if (fd >= 0) {
		close(dirfd);
		snprintf(path, len, "%s/%s", tmp_dir(), name);
		return fd;
	}
	/* the shared name is taken by something not ours: a base of our own */
	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];

		random_suffix(suffix, sizeof(suffix));
		snprintf(tt.base_name, sizeof(tt.base_name), "%s.%s", name, suffix);
		if (mkdirat(dirfd, tt.base_name, 0700)) {
			if (errno == EEXIST)
				continue;
			break;
		}
		fd = openat(dirfd, tt.base_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || !make_private(fd, false))
			break;
		/* locked for the life of the process, as a tree is; a
		 * reclaimer that took it while it was new and empty has
		 * removed it: another name */
		if (!hold_base(dirfd, tt.base_name, fd)) {
			close(fd);
			continue;
		}
		tt.parent_fd = dirfd;
		snprintf(path, len, "%s/%s", tmp_dir(), tt.base_name);
		return fd;
	}
	return close_keep_errno(dirfd);
}

/*
 * Removes dirfd/name and, for a directory, everything below it, relative
 * to open directories only: links are removed, never followed, and only
 * entries owned by the user are touched.
 */
static int remove_at(int dirfd, const char *name, int depth)
{
	struct stat st, held;
	struct dirent *e;
	DIR *d;
	int fd;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, name, 0);
	if (depth >= MAX_DEPTH) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* the directory opened is the one looked at, not a replacement */
	if (fstat(fd, &held) || held.st_ino != st.st_ino || held.st_dev != st.st_dev) {
		close(fd);
		errno = EAGAIN;
		return -1;
	}
	d = fdopendir(fd);
	if (!d)
		return close_keep_errno(fd);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			remove_at(fd, e->d_name, depth + 1);
	closedir(d);
	return unlinkat(dirfd, name, AT_REMOVEDIR);
}

/* "mlx4emu.<pid>.<suffix>.lock": the tree's name goes to stem. */
static bool lock_name(const char *name, char *stem, size_t len)
{
	size_t n = strlen(name), s = strlen(LOCK_SUFFIX);
	char *end;

	if (strncmp(name, TREE_PREFIX, strlen(TREE_PREFIX)) || n <= s ||
	    strcmp(name + n - s, LOCK_SUFFIX) || n - s >= len)
		return false;
	if (strtol(name + strlen(TREE_PREFIX), &end, 10) <= 0 || *end != '.')
		return false;
	memcpy(stem, name, n - s);
	stem[n - s] = '\0';
	return true;
}

/* The lock base/name, taken when nobody holds it; -1 when held or not
 * a regular file of ours. */
static int take_stale_lock(int base, const char *name)
{
	struct stat st, now;
	int fd = openat(base, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    flock(fd, LOCK_EX | LOCK_NB) ||
	    /* still the file of that name (not one unlinked by another cleaner) */
	    fstatat(base, name, &now, AT_SYMLINK_NOFOLLOW) ||
	    now.st_ino != st.st_ino || now.st_dev != st.st_dev) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Trees whose lock nobody holds belong to processes that are gone (or
 * exec'd: the lock is close-on-exec). */
static void remove_stale_trees(int base)
{
	DIR *d = dir_stream_at(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char stem[256];
		int lock;

		if (!lock_name(e->d_name, stem, sizeof(stem)))
			continue;
		lock = take_stale_lock(base, e->d_name);
		if (lock < 0)
			continue;
		if (!remove_at(base, stem, 0) || errno == ENOENT)
			unlinkat(base, e->d_name, 0);
		close(lock);
	}
	closedir(d);
}

/*
 * NAME.lock created and locked first, then NAME: a tree never exists
 * without its lock held.  The lock is created under a name no cleaner
 * looks at (".NAME.lock"), locked, and only then renamed to NAME.lock
 * (the inode and its lock stay): a lock file created under its final
 * name would be unlocked for an instant, and a process starting beside
 * this one could take it for a dead one's and remove it.
 */
static int make_lock(int base, const char *lock)
{
	char hidden[sizeof(tt.name) + sizeof(LOCK_SUFFIX) + 1];
	int fd;

	snprintf(hidden, sizeof(hidden), ".%s", lock);
	fd = openat(base, hidden, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) ||
	    renameat2(base, hidden, base, lock, RENAME_NOREPLACE)) {
		unlinkat(base, hidden, 0);
		return close_keep_errno(fd);
	}
	return fd;
}

static int make_tree(int base)
{
	char lock[sizeof(tt.name) + sizeof(LOCK_SUFFIX)];

	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];

		random_suffix(suffix, sizeof(suffix));
		snprintf(tt.name, sizeof(tt.name), TREE_PREFIX "%ld.%s", (long)getpid(), suffix);
		snprintf(lock, sizeof(lock), "%s" LOCK_SUFFIX, tt.name);
		tt.lock_fd = make_lock(base, lock);
		if (tt.lock_fd < 0) {
			if (errno == EEXIST)
				continue;
			return -1;
		}
		if (mkdirat(base, tt.name, 0755) == 0)
			return 0;
		unlinkat(base, lock, 0);
		close_keep_errno(tt.lock_fd);
		tt.lock_fd = -1;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

int emu_tmptree_create(char *root, size_t len)
{
	char base_path[4096];
	struct stat st;

	tt.base_fd = open_base(base_path, sizeof(base_path));
	if (tt.base_fd < 0)
		return -1;
	if (fstat(tt.base_fd, &st))
		return -1;
	tt.base_dev = st.st_dev;
	tt.base_ino = st.st_ino;
	remove_stale_trees(tt.base_fd);
	if (make_tree(tt.base_fd))
		return -1;
	if ((size_t)snprintf(root, len, "%s/%s", base_path, tt.name) >= len) {
		errno = ENAMETOOLONG;
		emu_tmptree_remove();
		return -1;
	}
	return 0;
}

/* The fd is still the directory it was opened as (a program may have
 * closed it and reused the number). */
static bool still_base(void)
{
	struct stat st;

	return tt.base_fd >= 0 && !fstat(tt.base_fd, &st) && st.st_dev == tt.base_dev &&
	       st.st_ino == tt.base_ino;
}

void emu_tmptree_remove(void)
{
	char lock[sizeof(tt.name) + sizeof(LOCK_SUFFIX)];

	if (tt.lock_fd < 0 || !still_base())
		return;
	remove_at(tt.base_fd, tt.name, 0);
	snprintf(lock, sizeof(lock), "%s" LOCK_SUFFIX, tt.name);
	unlinkat(tt.base_fd, lock, 0);
	close(tt.lock_fd);
	tt.lock_fd = -1;
	close(tt.base_fd);
	tt.base_fd = -1;
	if (tt.parent_fd >= 0) {
		unlinkat(tt.parent_fd, tt.base_name, AT_REMOVEDIR);
		close(tt.parent_fd);
		tt.parent_fd = -1;
	}
}
