# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# README.md is a front page: at most MAX_LINES lines, and every relative
# link of it (and of the docs/ pages it links to) names a file or
# directory of the tree, so that each moved section is one click away.
# Inputs: SOURCE_DIR, MAX_LINES.
cmake_minimum_required(VERSION 3.18)
file(STRINGS ${SOURCE_DIR}/README.md lines)
list(LENGTH lines n)
if(n GREATER MAX_LINES)
  message(FATAL_ERROR "README.md has ${n} lines, more than ${MAX_LINES}")
endif()
set(checked 0)
foreach(doc README.md docs/testing-your-program.md)
  file(READ ${SOURCE_DIR}/${doc} text)
  get_filename_component(dir ${SOURCE_DIR}/${doc} DIRECTORY)
  # a CMake list groups what is between [ and ]: mark the links, drop those
  string(REPLACE "](" "<link>(" text "${text}")
  string(REGEX REPLACE "[][;]" " " text "${text}")
  string(REGEX MATCHALL "<link>\\([^)# ]+" links "${text}")
  foreach(link IN LISTS links)
    string(SUBSTRING "${link}" 7 -1 target)
    if(target MATCHES "^[a-z]+:")
      continue()
    endif()
    if(NOT EXISTS ${dir}/${target})
      message(FATAL_ERROR "${doc} links to ${target}, which does not exist")
    endif()
    math(EXPR checked "${checked} + 1")
  endforeach()
endforeach()
if(checked LESS 5)
  message(FATAL_ERROR "only ${checked} links found: the link pattern no longer matches")
endif()
message(STATUS "README.md: ${n} lines; ${checked} links resolve")
