# The documentation's commands as a test: tests/docs/check_docs.py runs every shell command shown
# in README.md and docs/*.md (in a scratch folder, scripts/trainbench mapped to the built binary,
# cheap --set overrides from the pages' markers) and checks their exit codes and the pages'
# links. Included from the top-level CMakeLists.txt after the trainbench target is defined:
#   include(cmake/docs_test.cmake)
# It runs alone (its trainbench runs are timed work on a small machine); about 2 minutes on 2 cores.
if(NOT TRAINBENCH_TESTS OR NOT TARGET trainbench)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(TB_DOCS_PYTHON ${Python3_EXECUTABLE})
else()
  set(TB_DOCS_PYTHON python3)
endif()
add_test(NAME docs_commands
  COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs.py
          --trainbench $<TARGET_FILE:trainbench> --root ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(docs_commands PROPERTIES RUN_SERIAL TRUE TIMEOUT 600 LABELS docs)
# The checker's own contract (no binary needed): a page without shell blocks passes, an unknown
# or reason-less marker fails, a failing command is located, links are checked.
add_test(NAME docs_check_self_test
  COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs.py --self-test)
set_tests_properties(docs_check_self_test PROPERTIES TIMEOUT 120 LABELS docs)
