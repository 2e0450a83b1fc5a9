// The asynchronous form: out_capacity (nothing written before or after the outputs at any
// capacity), ordering on its own stream, back-to-back calls sharing a stream's scratch,
// several streams at once each with its own, and CUDA graph capture as one kernel.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "warpfold_test/graph_nodes.hpp"
#include "axis_test_util.hpp"

namespace {

using namespace warpfold_test;
using namespace axis_test;

using extents_list = std::vector<std::vector<std::int64_t>>;

class AxisAsync : public gpu_test {};

TEST_F(AxisAsync, WritesExactlyItsOutputsAtAnyCapacity) {
  const std::vector<std::int64_t> extents = {37, 129, 5};
  const std::int64_t n = element_count(extents);
  const device_input<float> input(make_values<float>(n, seed_for("capacity", n)));
  owned_stream stream;
  for (const std::vector<int>& axes : std::vector<std::vector<int>>{{1}, {0}, {2}, {0, 2}, {}, {0, 1, 2}}) {
    const layout l = make_layout(extents, axes);
    const auto expected = expected_for<op::sum>(input.host_values(), l);
    for (std::int64_t capacity : {l.outputs(), l.outputs() + 1, l.outputs() + 100000}) {
      SCOPED_TRACE(::testing::Message() << l.text << " capacity " << capacity);
      // The output starts 3 elements into a sentinel buffer: nothing before it or after
      // its outputs may change.
      const sentinel_output<float> buffer(capacity + 3);
      warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes), buffer.data() + 3, capacity, stream.get());
      WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream.get()));
      const std::vector<float> all = buffer.download(capacity + 3);
      const std::vector<float> got(all.begin() + 3, all.begin() + 3 + l.outputs());
      EXPECT_TRUE(matches_all(expected, got, l));
      EXPECT_TRUE(buffer.untouched_from(3 + l.outputs()));
      for (int i = 0; i < 3; ++i) {
        unsigned char bytes[sizeof(float)];
        std::memcpy(bytes, &all[i], sizeof(float));
        EXPECT_TRUE(std::all_of(bytes, bytes + sizeof(float), [](unsigned char b) { return b == sentinel_byte; }))
            << "element " << i - 3 << " before the output was written";
      }
    }
  }
  EXPECT_TRUE(input.unchanged());
}

TEST_F(AxisAsync, IsOrderedOnItsStream) {
  // New data is copied into the input on the stream, then reduced on the same stream without
  // a synchronization in between: the result must be that of the new data. Then several
  // calls back to back (the stream's scratch reused) into separate outputs, synchronized once.
  const std::vector<std::int64_t> extents = {3, quick_mode() ? 100003 : 1000003};
  const std::int64_t n = element_count(extents);
  const std::vector<std::int32_t> before = make_values<std::int32_t>(n, seed_for("ordered-before", n));
  const std::vector<std::int32_t> after = make_values<std::int32_t>(n, seed_for("ordered-after", n));
  device_array<std::int32_t> input = upload(before);
  pinned_array<std::int32_t> staging(static_cast<std::size_t>(n));
  std::copy(after.begin(), after.end(), staging.data());
  owned_stream stream;

  std::vector<std::vector<int>> axis_sets = {{1}, {0}, {0, 1}, {}, {1}};
  std::vector<sentinel_output<std::int64_t>> outputs;
  for (const auto& axes : axis_sets) outputs.emplace_back(make_layout(extents, axes).outputs());
  (void)warpfold::sum_axes(input.data(), to_shape(extents), {1}, stream.get());  // binds scratch to the stream
  WARPFOLD_TEST_CUDA(cudaMemcpyAsync(input.data(), staging.data(), n * sizeof(std::int32_t), cudaMemcpyHostToDevice,
                                     stream.get()));
  for (std::size_t k = 0; k < axis_sets.size(); ++k)
    warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axis_sets[k]), outputs[k].data(), outputs[k].size(),
                       stream.get());
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream.get()));
  for (std::size_t k = 0; k < axis_sets.size(); ++k) {
    const layout l = make_layout(extents, axis_sets[k]);
    EXPECT_TRUE(matches_all(expected_for<op::sum>(after.data(), l), outputs[k].download(l.outputs()), l)) << "call " << k;
  }
}

TEST_F(AxisAsync, SeveralStreamsAtOnceKeepTheirOwnWorkspace) {
  // Split reductions (many blocks per output, partials and arrival counters in the stream's
  // scratch) enqueued on four streams before any of them is synchronized.
  const std::int64_t long_axis = quick_mode() ? 65537 : (std::int64_t{1} << 20) + 3;
  const extents_list shapes = {{4, long_axis}, {long_axis, 4}, {2, long_axis}, {long_axis, 3}};
  const std::vector<std::vector<int>> axis_sets = {{1}, {0}, {1}, {0}};
  std::vector<std::vector<float>> values;
  std::vector<device_input<float>> inputs;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const std::int64_t n = element_count(shapes[s]);
    values.push_back(make_values<float>(n, seed_for("streams", static_cast<std::int64_t>(s))));
    inputs.emplace_back(values.back());
  }
  std::vector<owned_stream> streams(shapes.size());
  std::vector<sentinel_output<float>> outputs;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    outputs.emplace_back(make_layout(shapes[s], axis_sets[s]).outputs());
    (void)warpfold::sum_axes(inputs[s].data(), to_shape(shapes[s]), to_axes(axis_sets[s]), streams[s].get());  // binds scratch
  }
  WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
  for (int round = 0; round < 3; ++round) {
    for (std::size_t s = 0; s < shapes.size(); ++s)
      warpfold::sum_axes(inputs[s].data(), to_shape(shapes[s]), to_axes(axis_sets[s]), outputs[s].data(),
                         outputs[s].size(), streams[s].get());
    WARPFOLD_TEST_CUDA(cudaDeviceSynchronize());
    for (std::size_t s = 0; s < shapes.size(); ++s) {
      const layout l = make_layout(shapes[s], axis_sets[s]);
      EXPECT_TRUE(matches_all(expected_for<op::sum>(values[s].data(), l), outputs[s].download(l.outputs()), l))
          << "round " << round << ", stream " << s;
    }
  }
}

TEST_F(AxisAsync, OneKernelCapturedInACudaGraphReplaysCorrectly) {
  // Split paths: their arrival counters must be back at zero after each launch for the
  // replays to be right.
  const std::int64_t long_axis = quick_mode() ? 65537 : 1000003;
  for (const auto& [extents, axes] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>>{
           {{3, long_axis}, {1}}, {{long_axis, 3}, {0}}, {{64, 1023}, {1}}, {{5, 7, 1025}, {0, 2}}}) {
    SCOPED_TRACE(describe(extents, axes));
    const std::int64_t n = element_count(extents);
    const std::vector<std::int32_t> values = make_values<std::int32_t>(n, seed_for("graph", n));
    const device_input<std::int32_t> input(values);
    const layout l = make_layout(extents, axes);
    const sentinel_output<std::int64_t> out(l.outputs());
    owned_stream stream;
    warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes), out.data(), out.size(), stream.get());
    WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream.get()));  // the first call bound its scratch

    cudaGraph_t graph;
    WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    warpfold::sum_axes(input.data(), to_shape(extents), to_axes(axes), out.data(), out.size(), stream.get());
    WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream.get(), &graph));
    EXPECT_EQ(warpfold_test::kernel_nodes(graph).size(), 1u) << "every axis reduction is a single kernel";
    cudaGraphExec_t exec;
    WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    const auto expected = expected_for<op::sum>(values.data(), l);
    for (int replay = 0; replay < 3; ++replay) {
      WARPFOLD_TEST_CUDA(cudaMemsetAsync(out.data(), sentinel_byte, l.outputs() * sizeof(std::int64_t), stream.get()));
      WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream.get()));
      WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream.get()));
      EXPECT_TRUE(matches_all(expected, out.download(l.outputs()), l)) << "replay " << replay;
    }
    EXPECT_TRUE(input.unchanged());
    WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
    WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  }
}

}  // namespace
