// Must NOT compile: bit_and has no meaning for floats. The test passes when the compiler
// stops with warpfold's readable static_assert message (see CMakeLists.txt).
#include <warpfold/reduce.hpp>

int main() {
  const float* d_in = nullptr;
  return static_cast<int>(warpfold::bit_and(d_in, 0));
}
