# Link with LLVM's lld when the compiler can (Debian's lld package; scripts/setup.sh installs it).
# GNU ld spent 2-6 s on each test executable against LibTorch's debug-laden libraries, lld a
# fraction of that. Only trainbench's own targets (trainbench_build_flags is a PRIVATE link), so a
# parent project keeps its own linker. TRAINBENCH_LINKER=default keeps the toolchain's.
set(TRAINBENCH_LINKER "lld" CACHE STRING "Linker for trainbench's targets: lld, mold, gold or default")
if(NOT TRAINBENCH_LINKER STREQUAL "default")
  include(CheckLinkerFlag)
  check_linker_flag(CXX "-fuse-ld=${TRAINBENCH_LINKER}" TB_HAVE_LINKER_${TRAINBENCH_LINKER})
  if(TB_HAVE_LINKER_${TRAINBENCH_LINKER})
    target_link_options(trainbench_build_flags INTERFACE "-fuse-ld=${TRAINBENCH_LINKER}")
  else()
    message(STATUS "trainbench: -fuse-ld=${TRAINBENCH_LINKER} not supported here; the default linker links")
  endif()
endif()
