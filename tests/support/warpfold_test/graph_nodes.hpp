// What a captured CUDA graph holds, for tests that check "one kernel" and how it is launched:
// a captured call may add memory nodes around its kernel (scratch that the graph owns, see
// device/scratch_pool.hpp), so tests look at the kernel nodes and name the rest.
#pragma once

#include <cuda_runtime_api.h>

#include <vector>

namespace warpfold_test {

std::vector<cudaGraphNode_t> graph_nodes_of_type(cudaGraph_t graph, cudaGraphNodeType type);

inline std::vector<cudaGraphNode_t> kernel_nodes(cudaGraph_t graph) {
  return graph_nodes_of_type(graph, cudaGraphNodeTypeKernel);
}

}  // namespace warpfold_test
