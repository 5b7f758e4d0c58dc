# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# libmlx4dv changes by additions only: every symbol of an earlier release
# (BASELINE: "name@@VERSION<TAB>prototype" lines) is still exported under
# its version, and the header declares it with the same prototype
# (whitespace collapsed; a deprecation attribute allowed). New symbols
# are listed, not refused.
# Usage: cmake -DLIB=<libmlx4dv.so> -DHEADER=<mlx4dv.h> -DBASELINE=<file>
#              -P check_symbols.cmake
cmake_minimum_required(VERSION 3.18)
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/HeaderText.cmake)
find_program(NM nm REQUIRED)
execute_process(COMMAND ${NM} -D --defined-only ${LIB}
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[A-Za-z_0-9]+@@?MLX4DV_[0-9.]+" exported "${nm_out}")
string(REPLACE "@@" "@" exported "${exported}")
mlx4dv_header_text(${HEADER} header)
# one space for every run of blanks, so that prototypes compare as text
string(REGEX REPLACE "[ \t\n]+" " " header "${header}")
string(REGEX REPLACE "__MLX4DV_DEPRECATED\\(\"[^\"]*\"\\) " "" header "${header}")

file(STRINGS ${BASELINE} lines REGEX "^mlx4dv_")
list(LENGTH lines n)
if(n LESS 10)
  message(FATAL_ERROR "only ${n} symbols in ${BASELINE}")
endif()
set(problems "")
set(kept "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "^([a-z0-9_]+)@@(MLX4DV_[0-9.]+)\t(.*)$" _ "${line}")
  set(name ${CMAKE_MATCH_1})
  set(version ${CMAKE_MATCH_2})
  set(proto "${CMAKE_MATCH_3}")
  list(APPEND kept "${name}@${version}")
  list(FIND exported "${name}@${version}" at)
  if(at LESS 0)
    list(APPEND problems "${name}@${version} is no longer exported")
  endif()
  string(FIND "${header}" "${proto};" at)
  if(at LESS 0)
    list(APPEND problems "${name}: the header no longer declares '${proto}'")
  endif()
endforeach()
if(problems)
  string(REPLACE ";" "\n" problems "${problems}")
  message(FATAL_ERROR "libmlx4dv changed more than by additions:\n${problems}")
endif()
set(added "")
foreach(e IN LISTS exported)
  list(FIND kept "${e}" at)
  if(at LESS 0)
    list(APPEND added "${e}")
  endif()
endforeach()
message(STATUS "${n} symbols of ${BASELINE} kept; added: ${added}")
