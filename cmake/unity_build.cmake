# Unity builds of trainbench's libraries: their units compiled in batches, one compiler process
# per batch. Each LibTorch unit spends 3.4 s just loading the 590 MB precompiled header (and the
# same torch templates are instantiated in every unit); a batch pays that once. Units keep their
# helpers in anonymous namespaces, so two helpers with one name in one batch would clash: a unit
# that cannot share a batch says so with SKIP_UNITY_BUILD_INCLUSION next to its source list.
# TRAINBENCH_UNITY=OFF compiles unit by unit (quicker when editing one file of a large batch).
option(TRAINBENCH_UNITY "Compile trainbench's libraries in batches (unity build)" ON)
set(TRAINBENCH_UNITY_BATCH 8 CACHE STRING "Units per batch in a unity build")

function(tb_unity target)
  if(TRAINBENCH_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${TRAINBENCH_UNITY_BATCH})
    # A batch #includes its units, so GCC takes each for a header and warns that a class holding
    # a type from an anonymous namespace could break the one-definition rule across units; a
    # unit included once, as here, cannot.
    target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
  endif()
endfunction()
