# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Cross build for s390x (big-endian) with Debian's cross compiler and the
# s390x multiarch packages (libcmocka-dev:s390x, libibverbs-dev:s390x);
# programs run under qemu-user with the s390x libraries of /.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-s390x -L /)

# pkg-config: the s390x .pc files only (their paths are /usr/...).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/s390x-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# The multiarch libraries live in /usr/lib/s390x-linux-gnu, which the
# cross linker does not search by itself; the arch-independent headers
# (infiniband/, cmocka.h) in /usr/include, searched after the cross
# compiler's own (glibc for s390x).
set(_mlx4dv_s390x_libdir /usr/lib/s390x-linux-gnu)
foreach(lang C CXX)
  set(CMAKE_${lang}_STANDARD_INCLUDE_DIRECTORIES "")
  set(CMAKE_${lang}_FLAGS_INIT "-idirafter ${MLX4DV_S390X_HOST_INCLUDE}")
endforeach()
set(CMAKE_EXE_LINKER_FLAGS_INIT "-L${_mlx4dv_s390x_libdir} -Wl,-rpath-link,${_mlx4dv_s390x_libdir}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-L${_mlx4dv_s390x_libdir} -Wl,-rpath-link,${_mlx4dv_s390x_libdir}")
