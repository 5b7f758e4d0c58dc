# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Fails when a public name has no reference page in MANDIR: every function
# of the header (its declaration style puts the name at the start of a
# line), every #define MLX4* of the header, every symbol of libmlx4dv's
# version script. A page must have a DESCRIPTION with text; a .so page
# must lead to one. The three functions whose pages rdma-core installs
# (libibverbs-dev) must have none here, and the header's own __ helpers
# none at all. The names are read with patterns of their own, not with
# the generator's parser, so a declaration the generator overlooks fails.
# Usage: cmake -DHEADER=<mlx4dv.h> -DMAP=<libmlx4dv.map> -DMANDIR=<man3>
#              [-DSYSTEM_MANDIR=/usr/share/man/man3] -P check_man_pages.cmake
cmake_minimum_required(VERSION 3.18)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/HeaderText.cmake)
# the umbrella with its parts (<infiniband/mlx4dv/*.h>) spliced in
mlx4dv_header_text(${HEADER} header_text)
set(names "")
string(REGEX MATCHALL "\n(mlx4dv_[a-z0-9_]+\\(|#[ \t]*define[ \t]+MLX4[A-Za-z0-9_]*)"
  header_names "${header_text}")
foreach(match IN LISTS header_names)
  string(REGEX REPLACE "^\n(#[ \t]*define[ \t]+)?" "" name "${match}")
  string(REGEX REPLACE "\\($" "" name "${name}")
  list(APPEND names "${name}")
endforeach()
file(STRINGS "${MAP}" map_lines REGEX "^[ \t]+mlx4dv_[a-z0-9_]+;")
foreach(line IN LISTS map_lines)
  string(REGEX REPLACE "[ \t;]" "" symbol "${line}")
  list(APPEND names "${symbol}")
endforeach()
list(REMOVE_DUPLICATES names)
list(LENGTH names count)
if(count LESS 150)
  message(FATAL_ERROR "only ${count} public names found in ${HEADER}")
endif()

set(rdma_core_pages mlx4dv_init_obj mlx4dv_query_device mlx4dv_set_context_attr)
set(missing "")
foreach(name IN LISTS names)
  if(name IN_LIST rdma_core_pages)
    if(EXISTS "${MANDIR}/${name}.3")
      list(APPEND missing "${name}: rdma-core's page, must not be installed here")
    endif()
    if(SYSTEM_MANDIR AND NOT EXISTS "${SYSTEM_MANDIR}/${name}.3.gz" AND
       NOT EXISTS "${SYSTEM_MANDIR}/${name}.3")
      list(APPEND missing "${name}: rdma-core's page is not in ${SYSTEM_MANDIR}")
    endif()
    continue()
  endif()
  set(page "${MANDIR}/${name}.3")
  if(NOT EXISTS "${page}")
    list(APPEND missing "${name}: no page")
    continue()
  endif()
  file(READ "${page}" text)
  if(text MATCHES "^\\.so man3/([A-Za-z0-9_]+\\.3)\n$")
    set(page "${MANDIR}/${CMAKE_MATCH_1}")
    if(NOT EXISTS "${page}")
      list(APPEND missing "${name}: .so to ${CMAKE_MATCH_1}, which is missing")
      continue()
    endif()
    file(READ "${page}" text)
  endif()
  if(NOT text MATCHES "\n\\.SH NAME\n[^\n]*${name}[,\n ]" OR
     NOT text MATCHES "\n\\.SH DESCRIPTION\n\\.nf\n[^.\n][^\n]+\n")
    list(APPEND missing "${name}: ${page} does not describe it")
  endif()
endforeach()
file(GLOB internal_pages "${MANDIR}/__*")
foreach(page IN LISTS internal_pages)
  list(APPEND missing "internal name with a page: ${page}")
endforeach()
if(missing)
  string(REPLACE ";" "\n  " missing "${missing}")
  message(FATAL_ERROR "reference pages (${MANDIR}):\n  ${missing}")
endif()
message(STATUS "${count} public names, each with its page in ${MANDIR}")
