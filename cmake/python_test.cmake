# The Python loop package's tests (python/tests, pytest) as ctest tests, one per test file so
# ctest spreads them over its jobs. They run with the venv's python (TB_PYTHON_EXECUTABLE: the
# torch this build links) and this checkout's package first on the path.
if(NOT TRAINBENCH_TESTS OR NOT TRAINBENCH_WITH_TORCH)
  return()
endif()
if(NOT TB_PYTHON_EXECUTABLE)
  message(STATUS "trainbench: no python with torch found (TRAINBENCH_PYTHON): the Python loop's tests are not registered")
  return()
endif()
execute_process(COMMAND ${TB_PYTHON_EXECUTABLE} -c "import pytest, torch" RESULT_VARIABLE TB_PYTEST_MISSING
  OUTPUT_QUIET ERROR_QUIET)
if(TB_PYTEST_MISSING)
  message(STATUS "trainbench: ${TB_PYTHON_EXECUTABLE} cannot import pytest and torch: the Python loop's tests are not registered")
  return()
endif()
file(GLOB TB_PYTHON_TESTS RELATIVE ${CMAKE_CURRENT_SOURCE_DIR}/python/tests CONFIGURE_DEPENDS
  ${CMAKE_CURRENT_SOURCE_DIR}/python/tests/test_*.py)
foreach(file ${TB_PYTHON_TESTS})
  get_filename_component(name ${file} NAME_WE)
  add_test(NAME python.${name}
    COMMAND ${TB_PYTHON_EXECUTABLE} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python/tests/${file}
    WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/python)
  set_tests_properties(python.${name} PROPERTIES TIMEOUT 600 LABELS python
    ENVIRONMENT "PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/python;TRAINBENCH_BINARY=$<TARGET_FILE:trainbench>")
endforeach()
