// Must NOT compile: long double is not an element type warpfold supports.
#include <warpfold/reduce.hpp>

int main() {
  const long double* d_in = nullptr;
  return static_cast<int>(warpfold::sum(d_in, 0));
}
