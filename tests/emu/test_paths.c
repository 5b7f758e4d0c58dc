// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * Path-based discovery: access, faccessat, euidaccess, eaccess and every
 * stat entry point see /dev/infiniband/uverbs0 as the character device
 * the sysfs "dev" file names (1:5), readable and writable by all, as a
 * uverbs node is.  Without the device these calls fail with ENOENT.
 */
#include "emu_test.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "test_exit.h"

#define DEV "/dev/infiniband/uverbs0"

static void check_dev(mode_t mode, dev_t rdev)
{
	assert_true(S_ISCHR(mode));
	assert_int_equal(major(rdev), 1);
	assert_int_equal(minor(rdev), 5);
	assert_int_equal(mode & 0666, 0666);
}

static void test_access(void **state)
{
	(void)state;
	assert_int_equal(access(DEV, F_OK), 0);
	assert_int_equal(access(DEV, R_OK | W_OK), 0);
	assert_int_equal(faccessat(AT_FDCWD, DEV, R_OK | W_OK, 0), 0);
	assert_int_equal(faccessat(AT_FDCWD, DEV, R_OK | W_OK, AT_EACCESS), 0);
	assert_int_equal(euidaccess(DEV, R_OK | W_OK), 0);
	assert_int_equal(eaccess(DEV, R_OK | W_OK), 0);
	/* a device node is not executable, as on a real system */
	errno = 0;
	assert_int_equal(access(DEV, X_OK), -1);
	assert_int_equal(errno, EACCES);
	/* other paths are untouched */
	errno = 0;
	assert_int_equal(access("/dev/infiniband/uverbs1", F_OK), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_stat_family(void **state)
{
	struct stat st;
	struct stat64 st64;
	struct statx stx;

	(void)state;
	assert_int_equal(stat(DEV, &st), 0);
	check_dev(st.st_mode, st.st_rdev);
	assert_int_equal(lstat(DEV, &st), 0);
	check_dev(st.st_mode, st.st_rdev);
	assert_int_equal(fstatat(AT_FDCWD, DEV, &st, 0), 0);
	check_dev(st.st_mode, st.st_rdev);
	assert_int_equal(fstatat(AT_FDCWD, DEV, &st, AT_SYMLINK_NOFOLLOW), 0);
	check_dev(st.st_mode, st.st_rdev);
	assert_int_equal(stat64(DEV, &st64), 0);
	check_dev(st64.st_mode, st64.st_rdev);
	assert_int_equal(lstat64(DEV, &st64), 0);
	check_dev(st64.st_mode, st64.st_rdev);
	assert_int_equal(fstatat64(AT_FDCWD, DEV, &st64, 0), 0);
	check_dev(st64.st_mode, st64.st_rdev);
	assert_int_equal(statx(AT_FDCWD, DEV, 0, STATX_BASIC_STATS, &stx), 0);
	check_dev(stx.stx_mode, makedev(stx.stx_rdev_major, stx.stx_rdev_minor));
}

/* The __xstat entry points that binaries built before glibc 2.33 call,
 * reached as such a binary reaches them: by symbol. */
static void test_xstat(void **state)
{
	int (*xstat)(int, const char *, struct stat *);
	int (*lxstat)(int, const char *, struct stat *);
	int (*xstat64)(int, const char *, struct stat64 *);
	int (*fxstatat)(int, int, const char *, struct stat *, int);
	struct stat st;
	struct stat64 st64;
	const int ver = 1;	/* _STAT_VER_LINUX on x86_64 */

	(void)state;
	*(void **)&xstat = dlsym(RTLD_DEFAULT, "__xstat");
	*(void **)&lxstat = dlsym(RTLD_DEFAULT, "__lxstat");
	*(void **)&xstat64 = dlsym(RTLD_DEFAULT, "__xstat64");
	*(void **)&fxstatat = dlsym(RTLD_DEFAULT, "__fxstatat");
	if (!xstat || !lxstat || !xstat64 || !fxstatat)
		t_skip_case("a C library without __xstat and its kin");
#if !defined(__x86_64__)
	t_skip_case("__xstat's version number differs per architecture");
#endif
	assert_int_equal(xstat(ver, DEV, &st), 0);
	check_dev(st.st_mode, st.st_rdev);
	assert_int_equal(lxstat(ver, DEV, &st), 0);
	check_dev(st.st_mode, st.st_rdev);
	assert_int_equal(xstat64(ver, DEV, &st64), 0);
	check_dev(st64.st_mode, st64.st_rdev);
	assert_int_equal(fxstatat(ver, AT_FDCWD, DEV, &st, 0), 0);
	check_dev(st.st_mode, st.st_rdev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_stat_family),
		cmocka_unit_test(test_xstat),
	};

	t_run_group_tests(tests, NULL, NULL);
	return t_exit();
}
