// Which launch shape the dispatcher picks, seen from outside: a call captured into a CUDA
// graph is one kernel node, whose grid, block and cluster dimension can be read back. The
// shapes are those of device/reduce_policy.hpp: one block up to 64 KB; on sm_90 and later one
// cluster of 512-thread blocks up to 512 KB (16 blocks, which H100 and H200 allow); above that
// a wave of blocks and no cluster.
// Each captured graph is replayed and its answer checked, so a shape is never only counted.
#include <vector>

#include <warpfold/device/reduce_policy.hpp>

#include "warpfold_test/graph_nodes.hpp"
#include "reduce_test_util.hpp"

namespace {

using namespace warpfold_test;
using policy = warpfold::device::reduce_policy;

struct captured_launch {
  unsigned grid = 0;
  unsigned block = 0;
  unsigned cluster = 0;  // blocks per cluster; 0 or 1 when launched without clusters
  float replayed = 0;
};

// Captures warpfold::sum(input, n) on a fresh stream, reads the kernel node, replays it once.
captured_launch capture_sum(const device_input<float>& input) {
  captured_launch seen;
  device_array<float> out(1);
  cudaStream_t stream;
  WARPFOLD_TEST_CUDA(cudaStreamCreate(&stream));
  warpfold::sum(input.data(), input.size(), out.data(), stream);  // binds scratch to the stream
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));

  cudaGraph_t graph;
  WARPFOLD_TEST_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  warpfold::sum(input.data(), input.size(), out.data(), stream);
  WARPFOLD_TEST_CUDA(cudaStreamEndCapture(stream, &graph));
  const std::vector<cudaGraphNode_t> kernels = warpfold_test::kernel_nodes(graph);
  EXPECT_EQ(kernels.size(), 1u) << "one kernel node";
  cudaGraphNode_t node = kernels.at(0);
  cudaKernelNodeParams params{};
  WARPFOLD_TEST_CUDA(cudaGraphKernelNodeGetParams(node, &params));
  seen.grid = params.gridDim.x;
  seen.block = params.blockDim.x;
  cudaLaunchAttributeValue cluster{};
  WARPFOLD_TEST_CUDA(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeClusterDimension, &cluster));
  seen.cluster = cluster.clusterDim.x;

  cudaGraphExec_t exec;
  WARPFOLD_TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  WARPFOLD_TEST_CUDA(cudaMemsetAsync(out.data(), 0xA5, sizeof(float), stream));
  WARPFOLD_TEST_CUDA(cudaGraphLaunch(exec, stream));
  WARPFOLD_TEST_CUDA(cudaStreamSynchronize(stream));
  copy_to_host(&seen.replayed, out.data(), 1);
  WARPFOLD_TEST_CUDA(cudaGraphExecDestroy(exec));
  WARPFOLD_TEST_CUDA(cudaGraphDestroy(graph));
  WARPFOLD_TEST_CUDA(cudaStreamDestroy(stream));
  return seen;
}

bool device_has_clusters() {
  int device = 0, major = 0;
  WARPFOLD_TEST_CUDA(cudaGetDevice(&device));
  WARPFOLD_TEST_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

class ReduceShapes : public gpu_test {};

TEST_F(ReduceShapes, EachSizeGetsItsDocumentedShape) {
  const bool clusters = device_has_clusters();
  const std::int64_t per_block = policy::cluster_block_bytes / std::int64_t(sizeof(float));
  struct expectation {
    std::int64_t n;
    unsigned cluster_blocks;  // expected with clusters; 0: no cluster
  };
  const std::vector<expectation> cases = {
      {1, 0},
      {policy::single_block_max_bytes / 4, 0},
      {policy::single_block_max_bytes / 4 + 1, 3},
      {3 * per_block, 3},
      {3 * per_block + 1, 4},
      {policy::cluster_max_bytes / 4, unsigned(policy::cluster_max_blocks)},
      {policy::cluster_max_bytes / 4 + 1, 0},
  };
  for (const expectation& c : cases) {
    SCOPED_TRACE(::testing::Message() << "n = " << c.n);
    const std::vector<float> values = make_values<float>(c.n, seed_for("shapes", c.n));
    const device_input<float> input(values);
    const captured_launch seen = capture_sum(input);
    EXPECT_TRUE(expect_sum<float>(values).matches(seen.replayed));
    EXPECT_TRUE(input.unchanged());
    if (c.n * 4 <= policy::single_block_max_bytes) {
      EXPECT_EQ(seen.grid, 1u);
      EXPECT_EQ(seen.block, unsigned(policy::block_size));
      EXPECT_LE(seen.cluster, 1u);
    } else if (clusters && c.cluster_blocks > 0) {
      EXPECT_EQ(seen.grid, c.cluster_blocks);
      EXPECT_EQ(seen.block, unsigned(policy::cluster_block_size));
      EXPECT_EQ(seen.cluster, c.cluster_blocks) << "the whole grid is one cluster";
    } else {
      EXPECT_GT(seen.grid, 1u);
      EXPECT_LE(seen.cluster, 1u) << "no clusters outside the cluster range, or before sm_90";
    }
  }
}

}  // namespace
