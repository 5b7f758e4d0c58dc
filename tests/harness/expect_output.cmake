# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# cmake -DEXPECT_REGEX=<regex> [-DEXPECT_EXIT=<status>] -P expect_output.cmake
#       <program> [args...]
# Runs <program> and passes only when its exit status is EXPECT_EXIT
# (default 0) and its output (stdout and stderr together) matches
# EXPECT_REGEX.  ctest's PASS_REGULAR_EXPRESSION alone ignores the exit
# status: a program that prints the expected line and then fails passes.
if(NOT DEFINED EXPECT_REGEX)
  message(FATAL_ERROR "expect_output.cmake: EXPECT_REGEX is required")
endif()
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()

# The program starts after the script's own name on the command line.
set(command "")
set(after_script FALSE)
math(EXPR last "${CMAKE_ARGC} - 1")
foreach(i RANGE 1 ${last})
  if(after_script)
    # a ';' inside one argument must not split it into two
    string(REPLACE ";" "\\;" arg "${CMAKE_ARGV${i}}")
    list(APPEND command "${arg}")
  elseif(CMAKE_ARGV${i} STREQUAL CMAKE_SCRIPT_MODE_FILE OR
         CMAKE_ARGV${i} MATCHES "expect_output\\.cmake$")
    set(after_script TRUE)
  endif()
endforeach()
if(command STREQUAL "")
  message(FATAL_ERROR "expect_output.cmake: no program to run")
endif()

execute_process(COMMAND ${command}
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(NOT status STREQUAL EXPECT_EXIT)
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_EXIT}")
endif()
if(NOT out MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
