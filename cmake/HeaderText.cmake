# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# mlx4dv_header_text(UMBRELLA OUT): the text of <infiniband/mlx4dv.h> as
# the compiler reads it: each '#include <infiniband/mlx4dv/PART.h>' line
# replaced by that part (from the directory beside UMBRELLA) where it is
# first included, later includes of the same part dropped, as its include
# guard drops them. For the scripts that read the header's declarations
# and comments (the man page check, the export check).
function(mlx4dv_header_text umbrella out)
  get_filename_component(dir ${umbrella} DIRECTORY)
  file(READ ${umbrella} text)
  set(seen "")
  while(text MATCHES "#include <infiniband/mlx4dv/([a-z0-9_]+)\\.h>\n")
    set(line "${CMAKE_MATCH_0}")
    set(part "${CMAKE_MATCH_1}")
    string(FIND "${text}" "${line}" at)
    string(LENGTH "${line}" len)
    string(SUBSTRING "${text}" 0 ${at} head)
    math(EXPR rest_at "${at} + ${len}")
    string(SUBSTRING "${text}" ${rest_at} -1 rest)
    list(FIND seen ${part} at_seen)
    if(at_seen GREATER -1)
      set(body "")
    else()
      list(APPEND seen ${part})
      file(READ ${dir}/mlx4dv/${part}.h body)
    endif()
    string(APPEND body "${rest}")
    string(REPLACE "${line}" "" body "${body}")
    set(text "${head}${body}")
  endwhile()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()
