# Writes OUT, a C++ source that holds each file of ASSETS (a ;-list of paths) as a string
# constant in tb::embedded_assets (declared in trainbench/reporters/embedded_assets.hpp): the
# reports' stylesheets and scripts live in real .css and .js files, yet the binary needs no file
# at run time. A constant's name comes from its file's: report.css -> kReportCss, charts.js ->
# kChartsJs. Each string starts with a newline (the <style>/<script> element's first line).
# Run at build time: cmake -DOUT=... -DASSETS=... -P embed_assets.cmake
set(text "// Generated from trainbench/reporters/assets/ by cmake/embed_assets.cmake: edit those files.\n")
string(APPEND text "#include <trainbench/reporters/embedded_assets.hpp>\n\nnamespace tb::embedded_assets {\n")
foreach(asset IN LISTS ASSETS)
  get_filename_component(stem ${asset} NAME_WE)
  get_filename_component(ext ${asset} EXT)
  string(SUBSTRING ${ext} 1 -1 ext)
  set(name "k")
  foreach(part IN ITEMS ${stem} ${ext})
    string(SUBSTRING ${part} 0 1 first)
    string(TOUPPER ${first} first)
    string(SUBSTRING ${part} 1 -1 rest)
    string(APPEND name ${first}${rest})
  endforeach()
  file(READ ${asset} content)
  string(FIND "${content}" ")tbasset\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${asset} contains the raw-string delimiter )tbasset\"")
  endif()
  string(APPEND text "\nconst char* const ${name} = R\"tbasset(\n${content})tbasset\";\n")
endforeach()
string(APPEND text "\n}  // namespace tb::embedded_assets\n")
# Rewritten only when it changes, so an unchanged asset rebuilds nothing.
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUT} "${text}")
endif()
