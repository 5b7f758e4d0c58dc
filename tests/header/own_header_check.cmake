# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Every object of the build that includes <infiniband/mlx4dv.h> found the
# project's header (INCLUDE/infiniband/mlx4dv.h), not rdma-core's
# /usr/include one, which a target gets silently when it is not linked
# with mlx4dv::headers: both define the same rdma-core part, so such a
# test compiles and tests the wrong header.
#
# The facts are the compiler's own: the dependency files gcc and clang
# write with -MD (CMake keeps them as <object>.d beside each object with the
# Makefile generators; Ninja folds them into its log, read with ninja -t
# deps).
#
# -DBUILD=dir        the build tree to scan
# -DINCLUDE=dir      the project's include/ directory
# -DGENERATOR=name   CMAKE_GENERATOR of BUILD
# -DMAKE_PROGRAM=exe CMAKE_MAKE_PROGRAM (for Ninja)
# -DEXEMPT=a|b       object directories (<target>.dir) that compile against
#                    rdma-core's header on purpose (the comparisons)
cmake_minimum_required(VERSION 3.20)
foreach(v BUILD INCLUDE GENERATOR)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "own_header_check.cmake: -D${v}= missing")
  endif()
endforeach()
string(REPLACE "|" ";" exempt "${EXEMPT}")
file(REAL_PATH "${INCLUDE}/infiniband/mlx4dv.h" ours)

# objects: a list of "object<TAB>dependency text" read into two lists.
set(names "")
set(texts "")
if(GENERATOR MATCHES "Ninja")
  execute_process(COMMAND ${MAKE_PROGRAM} -C ${BUILD} -t deps
    OUTPUT_VARIABLE deps RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${MAKE_PROGRAM} -t deps failed (${rc})")
  endif()
  # Blocks "object: #deps N, ..." then one indented path a line.
  string(REGEX MATCHALL "[^\n]+: #deps[^\n]*\n(    [^\n]*\n)*" blocks "${deps}")
  foreach(b IN LISTS blocks)
    string(REGEX MATCH "^[^:]+" obj "${b}")
    list(APPEND names "${obj}")
    string(REPLACE ";" "," b "${b}")
    list(APPEND texts "${b}")
  endforeach()
else()
  file(GLOB_RECURSE depfiles LIST_DIRECTORIES false "${BUILD}/*.o.d")
  # Exempt ones are never read: other tests may be rewriting them now.
  foreach(e IN LISTS exempt)
    list(FILTER depfiles EXCLUDE REGEX "/${e}/")
  endforeach()
  foreach(d IN LISTS depfiles)
    if(NOT EXISTS "${d}")
      continue()
    endif()
    file(READ "${d}" t)
    string(REPLACE ";" "," t "${t}")
    list(APPEND names "${d}")
    list(APPEND texts "${t}")
  endforeach()
endif()

list(LENGTH names n)
if(n EQUAL 0)
  message(FATAL_ERROR "no dependency information under ${BUILD}: build it first")
endif()

set(good 0)
set(bad "")
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  list(GET names ${i} obj)
  list(GET texts ${i} t)
  string(REGEX MATCHALL "[^ \t\n\\\\:,]*infiniband/mlx4dv\\.h" found "${t}")
  if(NOT found)
    continue()
  endif()
  set(skip FALSE)
  foreach(e IN LISTS exempt)
    if(obj MATCHES "/${e}/")
      set(skip TRUE)
    endif()
  endforeach()
  if(skip)
    continue()
  endif()
  list(REMOVE_DUPLICATES found)
  foreach(f IN LISTS found)
    if(NOT IS_ABSOLUTE "${f}")
      set(f "${BUILD}/${f}")
    endif()
    file(REAL_PATH "${f}" f)
    if(f STREQUAL ours)
      math(EXPR good "${good} + 1")
    else()
      string(APPEND bad "  ${obj}\n    includes ${f}\n")
    endif()
  endforeach()
endforeach()

if(bad)
  message(FATAL_ERROR "objects compiled against a header other than ${ours} "
    "(link their target with mlx4dv::headers):\n${bad}")
endif()
if(good EQUAL 0)
  message(FATAL_ERROR "no object of ${BUILD} includes ${ours}: nothing was checked")
endif()
message(STATUS "${good} objects include ${ours}, none another mlx4dv.h "
  "(${n} objects scanned)")
