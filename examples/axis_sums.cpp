// The README's axis example: row and column reductions of a matrix, from plain C++ (the
// kernels are compiled once in warpfold_kernels). Built with the project, and a test checks
// that the README holds this file verbatim.
#include <warpfold/axes.hpp>

#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

int main() try {
  const std::int64_t rows = 4096, cols = 16;
  std::vector<float> host(rows * cols);
  for (std::size_t i = 0; i < host.size(); ++i) host[i] = float(i % 7);

  float* d_x = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&d_x), host.size() * sizeof(float));
  cudaMemcpy(d_x, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);

  // Blocking: 4096 row sums (torch.sum(x, 1)) and 16 column maxima, back on the host.
  std::vector<float> row_sums = warpfold::sum_axes(d_x, {rows, cols}, {1});
  std::vector<float> col_max = warpfold::max_axes(d_x, {rows, cols}, {0});

  // Asynchronous: the column sums stay in device memory; d_out holds 16 floats.
  float* d_out = nullptr;
  cudaMalloc(reinterpret_cast<void**>(&d_out), cols * sizeof(float));
  warpfold::sum_axes(d_x, {rows, cols}, {-2}, d_out, cols, nullptr);  // -2: the first of two axes

  // Any rank up to 8 and any set of axes; the output keeps the other axes in order.
  auto middle = warpfold::argmax_axes(d_x, {64, 64, 16}, {1});  // 64 x 16 (value, index) pairs

  // A strided view, read in place: x.T is 16 x 4096 with element strides {1, 16}.
  std::vector<float> t_sums = warpfold::sum_axes(d_x, {cols, rows}, warpfold::strides{1, cols}, {1});
  std::printf("row 0 sums to %.0f, column 0 peaks at %.0f and sums to %.0f, (0, 0) argmax %lld; %s keeps its memory layout\n",
              row_sums[0], col_max[0], t_sums[0], static_cast<long long>(middle[0].index),
              warpfold::reduced_shape({64, 64, 16}, {1}, /*keep_dims=*/true).to_string().c_str());
  cudaFree(d_out);
  cudaFree(d_x);
  return 0;
} catch (const warpfold::error& e) {
  std::fprintf(stderr, "warpfold: %s\n", e.what());
  return 1;
}
