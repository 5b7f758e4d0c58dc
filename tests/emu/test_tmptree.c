// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * The fake sysfs trees in a shared temporary directory: a program run
 * under the device (argv[1] = mlx4emu-run) must remove only the user's
 * own stale trees, never follow a planted symlink, leave other users'
 * trees and trees whose lock is held (a live process, possibly in another
 * pid namespace) alone, refuse a base directory that is not private, and
 * reclaim the per-process bases that killed processes left behind.
 * Every case runs in a fresh directory standing in for /tmp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test_exit.h"

#define OTHER_UID 4242

static const char *run;
static char top[256];	/* stands for /tmp */
static char base[320];	/* top/mlx4emu-<uid> */

static void pathf(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void pathf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	assert_true((size_t)vsnprintf(out, len, fmt, ap) < len);
	va_end(ap);
}

static void put(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);

	assert_true(fd >= 0);
	close(fd);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Runs `mlx4emu-run ibv_devices` with TMPDIR=top; true if it listed the
 * device and exited 0. */
static bool run_device(void)
{
	char cmd[1024], line[256];
	bool found = false;
	FILE *p;

	pathf(cmd, sizeof(cmd), "env -u XDG_RUNTIME_DIR TMPDIR=%s %s ibv_devices", top, run);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		found |= strstr(line, "mlx4_0") != NULL;
	return pclose(p) == 0 && found;
}

static void rm_rf(const char *path)
{
	char cmd[512];

	pathf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	pathf(top, sizeof(top), "%s/mlx4emu-tmptree.XXXXXX", P_tmpdir);
	assert_non_null(mkdtemp(top));
	pathf(base, sizeof(base), "%s/mlx4emu-%lu", top, (unsigned long)geteuid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(top);
	return 0;
}

/* victim/keep, victim/sub/keep: what a planted link points at */
static void plant_victim(char *victim, size_t len)
{
	char p[512];

	pathf(victim, len, "%s/victim", top);
	assert_int_equal(mkdir(victim, 0755), 0);
	pathf(p, sizeof(p), "%s/keep", victim);
	put(p);
	pathf(p, sizeof(p), "%s/sub", victim);
	assert_int_equal(mkdir(p, 0755), 0);
	pathf(p, sizeof(p), "%s/sub/keep", victim);
	put(p);
}

static void assert_victim_intact(const char *victim)
{
	char p[512];

	pathf(p, sizeof(p), "%s/keep", victim);
	assert_true(exists(p));
	pathf(p, sizeof(p), "%s/sub/keep", victim);
	assert_true(exists(p));
	assert_int_equal(entries(victim), 2);
}

/* base/NAME as a directory and base/NAME.lock, both ours */
static void plant_tree(const char *name, char *tree, size_t len)
{
	char p[512];

	pathf(tree, len, "%s/%s", base, name);
	assert_int_equal(mkdir(tree, 0755), 0);
	pathf(p, sizeof(p), "%s.lock", tree);
	put(p);
}

static void test_stale_links_foreign_live(void **state)
{
	char victim[320], stale[512], foreign[512], live[512], link[512], p[1100];
	int live_lock;

	(void)state;
	if (geteuid() != 0)
		t_skip_case("planting another user's tree needs chown (root)");
	plant_victim(victim, sizeof(victim));
	assert_int_equal(mkdir(base, 0700), 0);
	/* a stale tree of ours, full of links into the victim */
	plant_tree("mlx4emu.99999999.stale1", stale, sizeof(stale));
	pathf(p, sizeof(p), "%s/class", stale);
	assert_int_equal(symlink(victim, p), 0);
	pathf(p, sizeof(p), "%s/dir", stale);
	assert_int_equal(mkdir(p, 0755), 0);
	pathf(p, sizeof(p), "%s/dir/keep", stale);
	assert_int_equal(symlink(victim, p), 0);
	/* a "tree" that is a link to the victim */
	pathf(link, sizeof(link), "%s/mlx4emu.99999998.link01", base);
	assert_int_equal(symlink(victim, link), 0);
	pathf(p, sizeof(p), "%s.lock", link);
	put(p);
	/* another user's tree */
	plant_tree("mlx4emu.99999997.forgn1", foreign, sizeof(foreign));
	pathf(p, sizeof(p), "%s/file", foreign);
	put(p);
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(chown(foreign, OTHER_UID, OTHER_UID), 0);
	/* a live tree: its lock is held (pid 99999995 is no process here) */
	plant_tree("mlx4emu.99999995.live01", live, sizeof(live));
	pathf(p, sizeof(p), "%s.lock", live);
	live_lock = open(p, O_RDWR);
	assert_true(live_lock >= 0);
	assert_int_equal(flock(live_lock, LOCK_EX), 0);

	assert_true(run_device());

	assert_victim_intact(victim);
	assert_false(exists(stale));
	pathf(p, sizeof(p), "%s.lock", stale);
	assert_false(exists(p));
	pathf(p, sizeof(p), "%s/file", foreign);
	assert_true(exists(p));
	assert_true(exists(live));
	pathf(p, sizeof(p), "%s.lock", live);
	assert_true(exists(p));
	/* left: foreign + lock, live + lock, and at most the planted link and
	 * its lock; the run's own tree is gone */
	assert_true(entries(base) <= 6 && entries(base) >= 4);
	close(live_lock);
}

/* The shared base name is a link to the victim: not used, nothing under
 * the victim is touched, the device still works. */
static void test_base_is_a_link(void **state)
{
	char victim[320];

	(void)state;
	plant_victim(victim, sizeof(victim));
	assert_int_equal(symlink(victim, base), 0);
	assert_true(run_device());
	assert_victim_intact(victim);
	/* the per-process base it used instead is gone too */
	assert_int_equal(entries(top), 2);
}

/* The shared base belongs to another user: left alone. */
static void test_base_of_another_user(void **state)
{
	char p[512];

	(void)state;
	if (geteuid() != 0)
		t_skip_case("planting another user's tree needs chown (root)");
	assert_int_equal(mkdir(base, 0700), 0);
	pathf(p, sizeof(p), "%s/mlx4emu.99999999.theirs", base);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chown(p, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(chown(base, OTHER_UID, OTHER_UID), 0);
	assert_true(run_device());
	assert_true(exists(p));
	assert_int_equal(entries(base), 1);
	assert_int_equal(entries(top), 1);
}

/* A base of ours that is group/world accessible is made private. */
static void test_base_made_private(void **state)
{
	struct stat st;

	(void)state;
	assert_int_equal(mkdir(base, 0700), 0);
	assert_int_equal(chmod(base, 0777), 0);
	assert_true(run_device());
	assert_int_equal(lstat(base, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(entries(base), 0);
}

/* A per-process base top/mlx4emu-<uid>.SUFFIX, 0700, holding a stale
 * tree (a directory and its unlocked lock). */
static void plant_private_base(const char *suffix, char *out, size_t len)
{
	char p[512];

	pathf(out, len, "%s.%s", base, suffix);
	assert_int_equal(mkdir(out, 0700), 0);
	pathf(p, sizeof(p), "%s/mlx4emu.99999999.stale1", out);
	assert_int_equal(mkdir(p, 0755), 0);
	pathf(p, sizeof(p), "%s/mlx4emu.99999999.stale1.lock", out);
	put(p);
}

/* Waits (10 s at most) for a per-process base not planted here (their
 * suffixes end in "01") to hold a tree; its path goes to out. */
static bool wait_private_base(char *out, size_t len)
{
	for (int tries = 0; tries < 200; tries++) {
		DIR *d = opendir(top);
		struct dirent *e;
		bool found = false;

		assert_non_null(d);
		while ((e = readdir(d)) && !found) {
			char p[512];

			pathf(p, sizeof(p), "%s/%s", top, e->d_name);
			if (strncmp(p, base, strlen(base)) || p[strlen(base)] != '.' ||
			    !strcmp(p + strlen(p) - 2, "01"))
				continue;
			found = entries(p) >= 2;
			if (found)
				pathf(out, len, "%s", p);
		}
		closedir(d);
		if (found)
			return true;
		usleep(50000);
	}
	return false;
}

/*
 * The shared base is taken (a link), so each process uses a base of its
 * own.  A process killed leaves its base behind; the next process
 * reclaims it and a planted leaked one, leaves alone the base of a live
 * process (its lock held), one that is a link and one of another user,
 * and removes its own at exit.
 */
static void test_private_base_reclaimed(void **state)
{
	char victim[320], leaked[400], live[400], killed[400], linked[400], theirs[400];
	char cmd[1024];
	bool found, leaked_gone;
	int live_fd;
	pid_t pid;

	(void)state;
	plant_victim(victim, sizeof(victim));
	assert_int_equal(symlink(victim, base), 0);
	plant_private_base("leak01", leaked, sizeof(leaked));
	plant_private_base("live01", live, sizeof(live));
	live_fd = open(live, O_RDONLY | O_DIRECTORY);
	assert_true(live_fd >= 0);
	assert_int_equal(flock(live_fd, LOCK_EX), 0);
	pathf(linked, sizeof(linked), "%s.link01", base);
	assert_int_equal(symlink(victim, linked), 0);
	if (geteuid() == 0) {
		plant_private_base("thrs01", theirs, sizeof(theirs));
		assert_int_equal(chown(theirs, OTHER_UID, OTHER_UID), 0);
	}

	/* a process that is killed while it runs */
	pathf(cmd, sizeof(cmd), "TMPDIR=%s", top);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		putenv(cmd);
		unsetenv("XDG_RUNTIME_DIR");
		execl(run, run, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	found = wait_private_base(killed, sizeof(killed));
	/* the planted leaked base went with that process's start */
	leaked_gone = !exists(leaked);
	kill(-pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_true(found);
	assert_true(leaked_gone);
	assert_true(exists(killed));

	assert_true(run_device());
	assert_false(exists(killed));
	assert_true(exists(live));
	assert_int_equal(entries(live), 2);
	assert_true(exists(linked));
	assert_victim_intact(victim);
	if (geteuid() == 0)
		assert_true(exists(theirs));
	close(live_fd);
}

/* Whether /dev/shm is a tmpfs shared as /tmp is: world-writable, sticky. */
static bool shm_is_shared_tmpfs(void)
{
	struct statfs fs;
	struct stat st;

	return !statfs("/dev/shm", &fs) && fs.f_type == 0x01021994 /* TMPFS_MAGIC */ &&
	       !stat("/dev/shm", &st) && S_ISDIR(st.st_mode) &&
	       (st.st_mode & (S_ISVTX | S_IWOTH)) == (S_ISVTX | S_IWOTH);
}

/* With neither XDG_RUNTIME_DIR nor TMPDIR set, the tree is made in
 * memory: /dev/shm/mlx4emu-<uid> when /dev/shm is a shared tmpfs, else
 * /tmp/mlx4emu-<uid> (emu/README.md, Discovery). */
static void test_default_base_in_memory(void **state)
{
	char cmd[1024], line[512] = "", want[64];
	FILE *p;

	(void)state;
	pathf(want, sizeof(want), "%s/mlx4emu-%lu/mlx4emu.",
	      shm_is_shared_tmpfs() ? "/dev/shm" : "/tmp", (unsigned long)geteuid());
	pathf(cmd, sizeof(cmd), "env -u XDG_RUNTIME_DIR -u TMPDIR %s sh -c 'echo \"$SYSFS_PATH\"'",
	      run);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_non_null(fgets(line, sizeof(line), p));
	assert_int_equal(pclose(p), 0);
	print_message("SYSFS_PATH %s", line);
	assert_true(!strncmp(line, want, strlen(want)));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stale_links_foreign_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_is_a_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_of_another_user, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_made_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_base_reclaimed, setup, teardown),
		cmocka_unit_test(test_default_base_in_memory),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s MLX4EMU_RUN\n", argv[0]);
		return 2;
	}
	run = argv[1];
	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
