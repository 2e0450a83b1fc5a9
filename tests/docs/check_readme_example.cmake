# Fails unless README.md contains each example verbatim, so the examples that users read are
# the ones that the build compiles. Run: cmake -DROOT=<repo> -P check_readme_example.cmake
file(READ "${ROOT}/README.md" readme)
foreach(name quickstart.cu axis_sums.cpp)
  file(READ "${ROOT}/examples/${name}" example)
  string(FIND "${readme}" "${example}" position)
  if(position EQUAL -1)
    message(FATAL_ERROR "README.md does not contain examples/${name} verbatim; paste the file into the README's example block")
  endif()
  message(STATUS "README example matches examples/${name}")
endforeach()
