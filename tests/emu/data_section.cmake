# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Fails when LIB's .data section is larger than MAX bytes: the device's
# object tables must stay zero-initialised (.bss), or the library carries
# them in the file.  cmake -DREADELF=... -DLIB=... -DMAX=... -P this file
execute_process(COMMAND ${READELF} -S -W ${LIB}
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -S ${LIB} failed (${rc})")
endif()
if(NOT out MATCHES "\\] \\.data +PROGBITS +[0-9a-f]+ [0-9a-f]+ ([0-9a-f]+)")
  message(FATAL_ERROR "no .data section in ${LIB}:\n${out}")
endif()
math(EXPR bytes "0x${CMAKE_MATCH_1}")
if(bytes GREATER MAX)
  message(FATAL_ERROR ".data of ${LIB} is ${bytes} bytes (at most ${MAX}): "
    "an initialised object table; give it zero bytes and set it at load")
endif()
message(STATUS ".data of ${LIB}: ${bytes} bytes (at most ${MAX})")
