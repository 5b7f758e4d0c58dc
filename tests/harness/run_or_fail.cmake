# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# run(COMMAND...) for the test scripts run with cmake -P: runs the command,
# fails the test with its output when it exits non-zero, and leaves its
# standard output in run_out.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  if(rc)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()
