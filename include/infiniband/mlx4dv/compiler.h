/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * <infiniband/mlx4dv/compiler.h> - compiler attributes and code-generation hints of the inline data path.
 *
 * A part of <infiniband/mlx4dv.h>: include that header, never this one.
 */
#ifndef _MLX4DV_COMPILER_H_
#define _MLX4DV_COMPILER_H_

#ifndef _MLX4DV_H_
#error "<infiniband/mlx4dv/compiler.h> is a part of <infiniband/mlx4dv.h>: include that"
#endif

/*
 * The inline rule. A function the data path runs once per WQE, receive or
 * CQE, straight-line code of a few stores or loads, is
 * MLX4DV_ALWAYS_INLINE: its cost is the table of docs/performance.md and
 * must not depend on the caller's optimization level. A function that
 * loops over a caller's list or the ring (ibv_send_wr/ibv_recv_wr lists,
 * the BlueFlame copy, stamping of several WQEBBs, a free-list walk),
 * converts a whole ibv_wc, or runs at setup (template, ownership, UD
 * destination) is "static inline": the compiler weighs it at each call.
 */

/*
 * Deprecated names. A name 0.3 replaced (docs/migration-0.3.md) is kept
 * for one version with its old meaning, calling its replacement. It warns
 * only when the program asks, by defining MLX4DV_WARN_DEPRECATED before
 * including the header: then each use is a -Wdeprecated-declarations
 * warning that names the replacement (an error under
 * -Werror=deprecated-declarations). Without it a 0.2 program builds as it
 * did, with -Werror too.
 */
#if defined(MLX4DV_WARN_DEPRECATED) && defined(__GNUC__)
#define __MLX4DV_DEPRECATED(replacement) \
	__attribute__((__deprecated__("deprecated in mlx4dv 0.3: use " replacement)))
#else
#define __MLX4DV_DEPRECATED(replacement)
#endif

/*
 * Preconditions of the segment builders and the free-list functions that
 * are too costly to test on every call (a walk of a list, a test in a
 * builder that returns nothing) are stated in their comments and checked
 * with MLX4DV_ASSERT() when the program is compiled with MLX4DV_DEBUG
 * defined: assert() then aborts on a violation. A program may define
 * MLX4DV_ASSERT itself before including the header (a test framework's
 * assertion, a log). Without MLX4DV_DEBUG the checks compile to nothing.
 *
 * __MLX4DV_CHECK(cond, func, rule) is the same check with a message: with
 * MLX4DV_DEBUG a violation prints "mlx4dv: FUNC: RULE" to stderr before
 * MLX4DV_ASSERT(0) fires, so that the abort names the function and the
 * rule broken; without MLX4DV_DEBUG it is nothing, and cond is not
 * evaluated.
 */
#ifndef MLX4DV_ASSERT
#ifdef MLX4DV_DEBUG
#include <assert.h>
#define MLX4DV_ASSERT(cond)	assert(cond)
#else
#define MLX4DV_ASSERT(cond)	((void)0)
#endif
#endif

#ifdef MLX4DV_DEBUG
#define __MLX4DV_CHECK(cond, func, rule) \
	((cond) ? (void)0 : \
	 ((void)fprintf(stderr, "mlx4dv: %s: %s\n", func, rule), MLX4DV_ASSERT(0)))
#else
#define __MLX4DV_CHECK(cond, func, rule)	((void)0)
#endif

/*
 * GNU C marks a declaration that uses a language extension so that
 * -Wpedantic stays quiet. Used for the anonymous structs and the trailing
 * header array rdma-core's layouts have always had.
 */
#if defined(__GNUC__)
#define __MLX4DV_EXTENSION __extension__
#else
#define __MLX4DV_EXTENSION
#endif

/* A value the compiler may no longer treat as a constant (it stays in a
 * register, and a loop keeps it there). A select between two constant
 * words then becomes a conditional move of registers (test, cmov) instead
 * of the compare, borrow and add that rebuild a constant: two instructions
 * fewer per WQE. Code generation only; no memory is touched. */
#ifdef __GNUC__
#define __MLX4DV_OPAQUE(v)	__asm__("" : "+r"(v))
#else
#define __MLX4DV_OPAQUE(v)	((void)0)
#endif

/*
 * A compiler-only barrier between the stores of a template WQE. Without
 * it GCC's SLP vectorizer pairs two 8-byte stores of registers into one
 * 16-byte store built with extra moves and shuffles: more instructions,
 * no fewer cycles. The values are in registers, so it costs nothing.
 */
#ifdef __GNUC__
#define __MLX4DV_STORE_GROUP()	__asm__ __volatile__("" ::: "memory")
#else
#define __MLX4DV_STORE_GROUP()	do { } while (0)
#endif

/* At the head of a rare branch: a compiler-only barrier, so that a load
 * the branch shares with the common one is not hoisted above the branch
 * into a register, where the common path would pay a move for what it
 * takes as a memory operand. Code generation only. */
#ifdef __GNUC__
#define __MLX4DV_RARE_PATH()	__asm__ __volatile__("" ::: "memory")
#else
#define __MLX4DV_RARE_PATH()	do { } while (0)
#endif

/* A function of the rare cases of a static inline call, kept out of line
 * and out of the hot code: the common body then stays small enough for
 * the compiler to inline. Code generation only. */
#ifdef __GNUC__
#define __MLX4DV_COLD	__attribute__((__cold__))
#else
#define __MLX4DV_COLD
#endif

/* A fact the compiler may rely on (the branch it would test never runs). */
#ifdef __GNUC__
#define __MLX4DV_ASSUME(c)	do { if (!(c)) __builtin_unreachable(); } while (0)
#else
#define __MLX4DV_ASSUME(c)	((void)0)
#endif

/* Branch hints for the rare paths of a post (stamping, errors) and the
 * common one-WQEBB case of a completion. */
#ifdef __GNUC__
#define __MLX4DV_UNLIKELY(x)	__builtin_expect(!!(x), 0)
#define __MLX4DV_LIKELY(x)	__builtin_expect(!!(x), 1)
#else
#define __MLX4DV_UNLIKELY(x)	(x)
#define __MLX4DV_LIKELY(x)	(x)
#endif

#endif /* _MLX4DV_COMPILER_H_ */
