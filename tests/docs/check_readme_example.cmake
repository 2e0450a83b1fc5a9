# Fails unless README.md contains examples/quickstart.cu verbatim, so the example that users
# read is the one that the build compiles. Run: cmake -DROOT=<repo> -P check_readme_example.cmake
file(READ "${ROOT}/README.md" readme)
file(READ "${ROOT}/examples/quickstart.cu" example)
string(FIND "${readme}" "${example}" position)
if(position EQUAL -1)
  message(FATAL_ERROR "README.md does not contain examples/quickstart.cu verbatim; paste the file into the README's example block")
endif()
message(STATUS "README example matches examples/quickstart.cu")
