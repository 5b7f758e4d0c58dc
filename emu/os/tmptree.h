/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * Private temporary trees (the fake sysfs tree) that a shared /tmp cannot
 * be used against.  Trees live in a per-user base directory, owned by the
 * user and mode 0700, checked after opening it without following links:
 * $XDG_RUNTIME_DIR/mlx4emu when $XDG_RUNTIME_DIR is such a directory,
 * else $TMPDIR/mlx4emu-<uid> (TMPDIR defaults to /dev/shm when that is
 * a shared tmpfs, else to /tmp).  When that name is
 * taken by anything else (a link, another user's directory), a fresh
 * mkdtemp directory $TMPDIR/mlx4emu-<uid>.XXXXXX is used for this process
 * alone, locked (flock, close-on-exec) while it lives and removed at
 * exit; one whose lock nobody holds (its process was killed or exec'd)
 * is reclaimed by the user's next process: its stale trees, then the
 * directory when that emptied it.
 *
 * Each tree NAME has a lock file NAME.lock beside it, created and locked
 * (flock) before the tree and held open, close-on-exec, for the life of
 * the process: a tree is stale exactly when its lock can be taken, which
 * holds across pid namespaces sharing the directory (no pid is looked
 * at).  Stale trees are removed with openat/unlinkat relative to open
 * directories (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), only entries owned by the
 * user, never following a link.
 */
#ifndef MLX4EMU_TMPTREE_H
#define MLX4EMU_TMPTREE_H

#include <stddef.h>

/* Removes the user's stale trees, then creates a new empty tree and
 * writes its absolute path to root (len bytes); 0, or -1 with errno. */
int emu_tmptree_create(char *root, size_t len);
/* Removes the tree emu_tmptree_create made, and its lock. */
void emu_tmptree_remove(void);

#endif
