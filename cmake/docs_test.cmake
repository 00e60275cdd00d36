# The documentation's commands as a test: tests/docs/check_docs.py runs every shell command shown
# in README.md and docs/*.md (in a scratch folder, scripts/trainbench mapped to the built binary,
# cheap --set overrides from the pages' markers) and checks their exit codes and the pages'
# links. Included from the top-level CMakeLists.txt after the trainbench target is defined:
#   include(cmake/docs_test.cmake)
if(NOT TRAINBENCH_TESTS OR NOT TARGET trainbench)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(TB_DOCS_PYTHON ${Python3_EXECUTABLE})
else()
  set(TB_DOCS_PYTHON python3)
endif()
# One test per page, so ctest spreads the pages over its jobs (alone, all pages took 78 s of a
# 380 s suite on 2 cores). Not serial: a page's commands are checked for their exit codes, not
# their timings; the gates that judge timings accept either verdict or switch contention off
# (test_ab and test_cli_gate check the verdicts themselves, alone). Each page runs in its own
# scratch folder with its own history, so pages run side by side.
file(GLOB TB_DOC_PAGES RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} CONFIGURE_DEPENDS docs/*.md)
# The pages that run a cross-check of both loops or a whole bisection take minutes: label "slow",
# run after the rest by scripts/test.
set(TB_SLOW_DOC_PAGES docs/python-loop.md docs/finding-the-commit.md)
foreach(page README.md ${TB_DOC_PAGES})
  get_filename_component(name ${page} NAME_WE)
  add_test(NAME docs_commands.${name}
    COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs.py
            --trainbench $<TARGET_FILE:trainbench> --root ${CMAKE_CURRENT_SOURCE_DIR} --only ${page})
  set(label docs)
  if(page IN_LIST TB_SLOW_DOC_PAGES)
    set(label slow)
  endif()
  set_tests_properties(docs_commands.${name} PROPERTIES TIMEOUT 600 LABELS ${label})
endforeach()
# The links of every page, and of the Markdown files that show no commands.
add_test(NAME docs_links COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs.py
  --links-only --root ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(docs_links PROPERTIES TIMEOUT 120 LABELS docs)
# The checker's own contract (no binary needed): a page without shell blocks passes, an unknown
# or reason-less marker fails, a failing command is located, links are checked.
add_test(NAME docs_check_self_test
  COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_docs.py --self-test)
set_tests_properties(docs_check_self_test PROPERTIES TIMEOUT 120 LABELS docs)
# The reference pages against what they describe: scenarios/README.md's fields and axes against
# schema/matrix.schema.json, docs/command-line.md's options and exit codes of each command against
# that command's --help (printed from the option tables the parser reads).
add_test(NAME docs_reference COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_reference.py
  --root ${CMAKE_CURRENT_SOURCE_DIR} --trainbench $<TARGET_FILE:trainbench>)
set_tests_properties(docs_reference PROPERTIES TIMEOUT 120 LABELS docs)
add_test(NAME docs_reference_self_test
  COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/docs/check_reference.py --self-test)
set_tests_properties(docs_reference_self_test PROPERTIES TIMEOUT 120 LABELS docs)
# The CI configurations under examples/ci/: YAML that parses, the structure each CI system
# needs, and only trainbench commands and options that exist.
add_test(NAME examples_ci COMMAND ${TB_DOCS_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/examples/check_ci_examples.py
  --root ${CMAKE_CURRENT_SOURCE_DIR} --trainbench $<TARGET_FILE:trainbench>)
set_tests_properties(examples_ci PROPERTIES TIMEOUT 120 LABELS docs SKIP_RETURN_CODE 77)
# The GPU check as a dry run on a machine without one (every stage skipped with what it would
# run), and the goals script on the H200 session's recorded results.
add_test(NAME device_check_dry_run COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tests/scripts/check_device_check.sh)
set_tests_properties(device_check_dry_run PROPERTIES TIMEOUT 120 LABELS docs
  ENVIRONMENT "TRAINBENCH_BINARY=$<TARGET_FILE:trainbench>")
