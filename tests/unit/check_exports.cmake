# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Exported symbols of libmlx4dv.so == the global names of the version
# script, each declared in the public header; SONAME is libmlx4dv.so.0.
find_program(NM nm REQUIRED)
find_program(READELF readelf REQUIRED)

execute_process(COMMAND ${NM} -D --defined-only ${LIB}
  OUTPUT_VARIABLE nm_out RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[TDBRW] [A-Za-z_0-9]+@@MLX4DV_[0-9.]+" exported "${nm_out}")
set(exported_names "")
foreach(e IN LISTS exported)
  string(REGEX REPLACE "^[TDBRW] ([A-Za-z_0-9]+)@@.*" "\\1" n "${e}")
  list(APPEND exported_names ${n})
endforeach()
# Any other defined, non-version symbol leaks an internal.
string(REGEX MATCHALL "\n[0-9a-f]+ [TDBRW] [A-Za-z_0-9]+\n" stray "\n${nm_out}")
if(stray)
  message(FATAL_ERROR "unversioned exported symbols: ${stray}")
endif()

file(READ ${MAP} map)
# Every node's global list: from "global:" to "local:" or the node's end.
string(REGEX MATCHALL "global:[^}:]*" globals "${map}")
string(REGEX MATCHALL "mlx4dv_[a-z0-9_]+" map_names "${globals}")

list(SORT exported_names)
list(SORT map_names)
if(NOT exported_names STREQUAL map_names)
  message(FATAL_ERROR "exported: ${exported_names}\nversion script: ${map_names}")
endif()
list(LENGTH map_names n)
if(n LESS 10)
  message(FATAL_ERROR "only ${n} symbols found in ${MAP}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/HeaderText.cmake)
mlx4dv_header_text(${HEADER} header)
foreach(name IN LISTS map_names)
  if(NOT header MATCHES "[ *\n]${name}\\(")
    message(FATAL_ERROR "${name} is exported but not declared in ${HEADER}")
  endif()
endforeach()

execute_process(COMMAND ${READELF} -d ${LIB} OUTPUT_VARIABLE dyn)
if(NOT dyn MATCHES "Library soname: \\[libmlx4dv\\.so\\.0\\]")
  message(FATAL_ERROR "SONAME is not libmlx4dv.so.0:\n${dyn}")
endif()
message(STATUS "${n} symbols exported as listed")
