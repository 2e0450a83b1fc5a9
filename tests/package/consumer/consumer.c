/* The C interface: what an unsupported op says, which needs no GPU. */
#include <warpfold/c_api.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  const int64_t extents[1] = {4};
  const int axes[1] = {0};
  const int status = warpfold_reduce_axes(WARPFOLD_BIT_AND, WARPFOLD_FLOAT32, 0, 1, extents, 0, 1, axes, 0, 1, 0);
  printf("warpfold %s: status %d, \"%s\"\n", warpfold_version(), status, warpfold_last_error());
  return status == WARPFOLD_INVALID_ARGUMENT && strstr(warpfold_last_error(), "integer") != NULL ? 0 : 1;
}
