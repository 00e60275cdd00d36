# Precompiled headers: two donors, each compiled once per build, reused by every unit like them.
#   trainbench_core  -> cmake/pch/core.hpp   (nlohmann/json, standard headers): the torch-free
#                       libraries and tests
#   trainbench_torch -> cmake/pch/torch.hpp  (ATen, torch::nn, torch::optim): everything that
#                       links LibTorch
# Measured on 2 cores (scripts/build-profile): a LibTorch unit spent 10-28 s, most of it parsing
# the same ATen headers. A compiler accepts a precompiled header only when the unit is compiled
# with the donor's code-generation flags: the donors are shared libraries (-fPIC), so executables
# that reuse one are compiled -fPIC too (Debian's default is -fPIE; it makes no difference to a
# test or benchmark). -Winvalid-pch says so when a header is rejected instead of slowing down
# silently. TRAINBENCH_PCH=OFF builds without them, which checks that every unit includes what it
# uses (a unit that forgot a header compiles with the precompiled one).
option(TRAINBENCH_PCH "Precompiled headers for LibTorch and the torch-free code" ON)

# GCC 12 loses, through a precompiled header, the system-header status of libstdc++'s inline
# std::string code: its known -Warray-bounds / -Wstringop-overflow / -Wstringop-overread /
# -Wrestrict false positives (GCC bug 105329: std::string operator+ and friends), silent when the
# same header is included as text, then surface in trainbench's units and would fail the -Werror
# build. Checked: a header holding nothing but <string>, precompiled, brings them back. So units
# using a precompiled header leave those four warnings to the TRAINBENCH_PCH=OFF build and to
# clang's (the sanitizer leg).
set(TB_PCH_WARNING_FLAGS -Winvalid-pch)
foreach(warning array-bounds stringop-overflow stringop-overread restrict)
  list(APPEND TB_PCH_WARNING_FLAGS $<$<CXX_COMPILER_ID:GNU>:-Wno-${warning}>)
endforeach()

# tb_precompile(DONOR HEADER): DONOR compiles HEADER and includes it first in each of its units.
function(tb_precompile donor header)
  if(TRAINBENCH_PCH)
    target_precompile_headers(${donor} PRIVATE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/${header}>)
    # CMake defines <target>_EXPORTS in a shared library's units; GCC refuses a header
    # precompiled with a macro that the unit using it lacks, so every consumer would parse it
    # again. Nothing in trainbench reads that macro.
    set_target_properties(${donor} PROPERTIES DEFINE_SYMBOL "")
    target_compile_options(${donor} PRIVATE ${TB_PCH_WARNING_FLAGS})
  endif()
endfunction()

# tb_reuse_precompiled(TARGET DONOR): TARGET's units include DONOR's precompiled header.
function(tb_reuse_precompiled target donor)
  if(TRAINBENCH_PCH)
    target_precompile_headers(${target} REUSE_FROM ${donor})
    target_compile_options(${target} PRIVATE ${TB_PCH_WARNING_FLAGS})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      target_compile_options(${target} PRIVATE -fPIC)
    endif()
  endif()
endfunction()
