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
 * Preconditions of the segment builders and the free-list functions that
 * are too costly to test on every call (a walk of a list, a test in a
 * builder that returns nothing) are stated in their comments and checked
 * with MLX4DV_ASSERT() when the program is compiled with MLX4DV_DEBUG
 * defined: assert() then aborts on a violation. A program may define
 * MLX4DV_ASSERT itself before including the header (a test framework's
 * assertion, a log). Without MLX4DV_DEBUG the checks compile to nothing.
 */
#ifndef MLX4DV_ASSERT
#ifdef MLX4DV_DEBUG
#include <assert.h>
#define MLX4DV_ASSERT(cond)	assert(cond)
#else
#define MLX4DV_ASSERT(cond)	((void)0)
#endif
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
