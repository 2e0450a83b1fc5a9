#include "warpfold_test/graph_nodes.hpp"

#include "warpfold_test/gpu.hpp"

namespace warpfold_test {

std::vector<cudaGraphNode_t> graph_nodes_of_type(cudaGraph_t graph, cudaGraphNodeType type) {
  std::size_t count = 0;
  check_cuda(cudaGraphGetNodes(graph, nullptr, &count), "cudaGraphGetNodes", __FILE__, __LINE__);
  std::vector<cudaGraphNode_t> all(count);
  if (count > 0) check_cuda(cudaGraphGetNodes(graph, all.data(), &count), "cudaGraphGetNodes", __FILE__, __LINE__);
  std::vector<cudaGraphNode_t> matching;
  for (cudaGraphNode_t node : all) {
    cudaGraphNodeType t;
    check_cuda(cudaGraphNodeGetType(node, &t), "cudaGraphNodeGetType", __FILE__, __LINE__);
    if (t == type) matching.push_back(node);
  }
  return matching;
}

}  // namespace warpfold_test
