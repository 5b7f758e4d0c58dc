# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Compiles the C blocks of a guide, in their order, as the body of
# WRAPPER (which #includes "snippets.inc" inside a function that declares
# the objects the guide has made by then), so that a block naming a
# function, field or constant the header no longer has fails.
# Inputs: DOC, WRAPPER, CC, INCLUDE, WORK.
cmake_minimum_required(VERSION 3.18)
include(${CMAKE_CURRENT_LIST_DIR}/../harness/run_or_fail.cmake)

file(STRINGS ${DOC} lines)
set(inc "")
set(blocks 0)
set(in_block FALSE)
foreach(line IN LISTS lines)
  if(in_block AND line MATCHES "^```")
    set(in_block FALSE)
  elseif(in_block)
    string(APPEND inc "${line}\n")
  elseif(line MATCHES "^```c$")
    set(in_block TRUE)
    math(EXPR blocks "${blocks} + 1")
    string(APPEND inc "/* ${DOC}, C block ${blocks} */\n")
  endif()
endforeach()
if(in_block OR blocks EQUAL 0)
  message(FATAL_ERROR "${DOC}: ${blocks} C blocks, the last one not closed: ${in_block}")
endif()
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/snippets.inc "${inc}")
run(${CC} -std=c11 -Wall -Wextra -Wpedantic -Werror -I${INCLUDE} -I${WORK}
    -c ${WRAPPER} -o ${WORK}/snippets.o)
message(STATUS "${blocks} C blocks of ${DOC} compile")
