// warpfold::reduce_axes_sharded (sharded_axes.hpp): the slab's own axis reduction, then the
// exchange that makes the global output.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "nccl_combine.hpp"
#include "warpfold/axes.hpp"
#include "warpfold/detail/op_type_list.hpp"
#include "warpfold/error.hpp"
#include "warpfold/sharded_axes.hpp"

namespace warpfold {
namespace {

using namespace sharded;
constexpr const char* api = "warpfold::reduce_axes_sharded";

// Layouts of up to this many ranks are passed to the combine kernel as an argument.
constexpr int max_gathered_ranks = 1024;

// Where the sharded axis lies among the reduced ones, for argmin/argmax indices: an index of a
// rank's output counts row-major over its reduced axes, `after` elements per step of the
// sharded axis; in the global array that axis has `global_extent` steps and the rank's start
// at offset[r].
struct index_shift {
  std::int64_t after = 1;
  std::int64_t global_extent = 0;
  int ranks = 0;
  std::int64_t extent[max_gathered_ranks];
  std::int64_t offset[max_gathered_ranks];
};

// out[e] = every rank's gathered[r * count + e], combined in rank order.
template <typename Op, typename R>
__global__ void combine_gathered(const R* gathered, std::int64_t count, R* out, index_shift shift) {
  const Op op{};
  for (std::int64_t e = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; e < count; e += std::int64_t{gridDim.x} * blockDim.x) {
    R acc = Op::template identity<R>();
    for (int r = 0; r < shift.ranks; ++r) {
      R v = gathered[r * count + e];
      if constexpr (is_arg_op_v<Op>) {
        if (v.index >= 0) {
          // (outer, j, inner) in the rank's reduced axes -> (outer, offset + j, inner) globally.
          const std::int64_t step = shift.extent[r] * shift.after;
          const std::int64_t outer = v.index / step, rest = v.index % step;
          v.index = (outer * shift.global_extent + shift.offset[r] + rest / shift.after) * shift.after + rest % shift.after;
        }
      }
      acc = op(acc, v);
    }
    out[e] = acc;
  }
}

// Which axes `reduce` names (already checked).
std::vector<bool> reduced_axes(const shape& local, const axes& reduce) {
  std::vector<bool> flags(static_cast<std::size_t>(local.rank()), false);
  for (int a : reduce.list()) flags[static_cast<std::size_t>(a < 0 ? a + local.rank() : a)] = true;
  return flags;
}

struct resolved_layout {
  int axis = 0;
  std::int64_t global_extent = 0;
  std::vector<std::int64_t> offsets;  // each rank's first position along the axis
  bool axis_reduced = false;
};

resolved_layout resolve(const shape& local, const axes& reduce, const shard_layout& layout, int ranks, int rank) {
  resolved_layout r;
  const int n = local.rank();
  r.axis = layout.axis < 0 ? layout.axis + n : layout.axis;
  if (r.axis < 0 || r.axis >= n)
    throw invalid_argument(std::string(api) + ": layout axis " + std::to_string(layout.axis) + " is out of range for shape " +
                           local.to_string());
  if (static_cast<int>(layout.extents.size()) != ranks)
    throw invalid_argument(std::string(api) + ": the layout lists " + std::to_string(layout.extents.size()) +
                           " extents for " + std::to_string(ranks) + " ranks");
  for (std::int64_t e : layout.extents) {
    if (e < 0) throw invalid_argument(std::string(api) + ": the layout has a negative extent, " + std::to_string(e));
    r.offsets.push_back(r.global_extent);
    r.global_extent += e;
  }
  if (rank >= 0 && layout.extents[rank] != local[r.axis])
    throw invalid_argument(std::string(api) + ": this rank's slab " + local.to_string() + " has extent " +
                           std::to_string(local[r.axis]) + " along axis " + std::to_string(r.axis) + ", but the layout gives rank " +
                           std::to_string(rank) + " " + std::to_string(layout.extents[rank]));
  (void)reduced_shape(local, reduce);  // checks the axes
  r.axis_reduced = reduced_axes(local, reduce)[static_cast<std::size_t>(r.axis)];
  return r;
}

// The product of the extents of `local` over the axes [first, last) for which keep(a) holds.
template <typename Keep>
std::int64_t product(const shape& local, int first, int last, Keep keep) {
  std::int64_t p = 1;
  for (int a = first; a < last; ++a)
    if (keep(a)) p *= local[a];
  return p;
}

}  // namespace

shape reduced_shape_sharded(const shape& local, const axes& reduce, const shard_layout& layout) {
  const resolved_layout r = resolve(local, reduce, layout, static_cast<int>(layout.extents.size()), -1);
  if (r.axis_reduced) return reduced_shape(local, reduce);
  std::vector<std::int64_t> global(local.begin(), local.end());
  global[static_cast<std::size_t>(r.axis)] = r.global_extent;
  return reduced_shape(shape(global), reduce);
}

namespace detail {

template <typename Op, typename T>
void reduce_axes_sharded_into(const T* d_local, const shape& local, const strides* view, const axes& reduce,
                              const shard_layout& layout, axis_result_t<Op, T>* d_out, std::int64_t out_capacity,
                              ncclComm_t comm, cudaStream_t stream, int root) {
  using R = axis_result_t<Op, T>;
  const comm_facts f = check_comm(comm, root, api);
  const resolved_layout l = resolve(local, reduce, layout, f.ranks, f.rank);
  const std::vector<bool> reduced = reduced_axes(local, reduce);
  const std::int64_t local_outputs = reduced_shape(local, reduce).elements();
  const bool writes_global = root < 0 || root == f.rank;
  const std::size_t bytes = sizeof(R);

  if (l.axis_reduced) {
    // Every rank's output has the global output's shape.
    reduce_axes_into<Op, T>(d_local, local, view, reduce, d_out, out_capacity, stream, nullptr);
    if (local_outputs == 0) return;
    if constexpr (nccl_combines<Op, R>) {
      if (root < 0)
        check_nccl(ncclAllReduce(d_out, d_out, local_outputs, nccl_type<R>(), nccl_op<Op>(), comm, stream), "ncclAllReduce", api);
      else
        check_nccl(ncclReduce(d_out, d_out, local_outputs, nccl_type<R>(), nccl_op<Op>(), root, comm, stream), "ncclReduce",
                   api);
    } else {
      if (is_arg_op_v<Op> && f.ranks > max_gathered_ranks)
        throw invalid_argument(std::string(api) + ": argmin and argmax over a sharded reduced axis take up to " +
                               std::to_string(max_gathered_ranks) + " ranks");
      index_shift shift{};
      shift.ranks = f.ranks;
      shift.global_extent = l.global_extent;
      // Reduced axes after the sharded one, in the view's order: the step of the sharded axis.
      shift.after = product(local, l.axis + 1, local.rank(), [&](int a) { return static_cast<bool>(reduced[a]); });
      for (int r = 0; r < f.ranks && r < max_gathered_ranks; ++r) {
        shift.extent[r] = layout.extents[r];
        shift.offset[r] = l.offsets[r];
      }
      R* gathered = nullptr;
      WARPFOLD_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&gathered), bytes * local_outputs * f.ranks, stream));
      try {
        check_nccl(ncclAllGather(d_out, gathered, bytes * local_outputs, ncclUint8, comm, stream), "ncclAllGather", api);
        if (writes_global) {
          const int blocks = static_cast<int>(std::min<std::int64_t>((local_outputs + 255) / 256, 1024));
          combine_gathered<Op, R><<<blocks, 256, 0, stream>>>(gathered, local_outputs, d_out, shift);
          WARPFOLD_CHECK_LAUNCH();
        }
      } catch (...) {
        (void)cudaFreeAsync(gathered, stream);
        throw;
      }
      WARPFOLD_CUDA_CHECK(cudaFreeAsync(gathered, stream));
    }
    return;
  }

  // The sharded axis is kept: the global output is (outer, global extent, inner) over the kept
  // axes, and this rank's slab of it (outer, its extent, inner).
  auto kept = [&](int a) { return !reduced[a]; };
  const std::int64_t outer = product(local, 0, l.axis, kept), inner = product(local, l.axis + 1, local.rank(), kept);
  const std::int64_t global_outputs = outer * l.global_extent * inner;
  if (out_capacity < global_outputs)
    throw invalid_argument(std::string(api) + ": the output holds " + std::to_string(out_capacity) + " values, but the global output has " +
                           std::to_string(global_outputs));
  auto slab_bytes = [&](int r) { return static_cast<std::size_t>(outer * layout.extents[r] * inner) * bytes; };
  if (outer == 1 || f.ranks == 1) {
    // Slabs are whole runs of the output, in rank order: each rank writes its own in place and
    // the exchange fills in the others'.
    const std::int64_t at = l.offsets[f.rank] * inner;
    reduce_axes_into<Op, T>(d_local, local, view, reduce, d_out + at, out_capacity - at, stream, nullptr);
    if (f.ranks == 1) return;
    check_nccl(ncclGroupStart(), "ncclGroupStart", api);
    for (int r = 0; r < f.ranks; ++r) {
      if (layout.extents[r] == 0) continue;
      R* place = d_out + l.offsets[r] * inner;
      if (root < 0) {
        check_nccl(ncclBroadcast(place, place, slab_bytes(r), ncclUint8, r, comm, stream), "ncclBroadcast", api);
      } else if (f.rank == root && r != root) {
        check_nccl(ncclRecv(place, slab_bytes(r), ncclUint8, r, comm, stream), "ncclRecv", api);
      } else if (f.rank == r && r != root) {
        check_nccl(ncclSend(place, slab_bytes(r), ncclUint8, root, comm, stream), "ncclSend", api);
      }
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", api);
    return;
  }
  // Slabs interleave in the output: gather them one after another, then copy each into place
  // as `outer` rows.
  reduce_axes_into<Op, T>(d_local, local, view, reduce, d_out, out_capacity, stream, nullptr);
  R* gathered = nullptr;
  WARPFOLD_CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&gathered), bytes * global_outputs, stream));
  try {
    check_nccl(ncclGroupStart(), "ncclGroupStart", api);
    for (int r = 0; r < f.ranks; ++r) {
      if (layout.extents[r] == 0) continue;
      R* slab = gathered + outer * l.offsets[r] * inner;
      if (root < 0) {
        check_nccl(ncclBroadcast(d_out, slab, slab_bytes(r), ncclUint8, r, comm, stream), "ncclBroadcast", api);
      } else if (f.rank == root) {
        if (r == root) WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(slab, d_out, slab_bytes(r), cudaMemcpyDeviceToDevice, stream));
        else check_nccl(ncclRecv(slab, slab_bytes(r), ncclUint8, r, comm, stream), "ncclRecv", api);
      } else if (f.rank == r) {
        check_nccl(ncclSend(d_out, slab_bytes(r), ncclUint8, root, comm, stream), "ncclSend", api);
      }
    }
    check_nccl(ncclGroupEnd(), "ncclGroupEnd", api);
    if (writes_global)
      for (int r = 0; r < f.ranks; ++r) {
        if (layout.extents[r] == 0) continue;
        const std::size_t row = static_cast<std::size_t>(layout.extents[r] * inner) * bytes;
        WARPFOLD_CUDA_CHECK(cudaMemcpy2DAsync(d_out + l.offsets[r] * inner, static_cast<std::size_t>(l.global_extent * inner) * bytes,
                                              gathered + outer * l.offsets[r] * inner, row, row, static_cast<std::size_t>(outer),
                                              cudaMemcpyDeviceToDevice, stream));
      }
  } catch (...) {
    (void)cudaFreeAsync(gathered, stream);
    throw;
  }
  WARPFOLD_CUDA_CHECK(cudaFreeAsync(gathered, stream));
}

}  // namespace detail

#define WARPFOLD_INSTANTIATE_SHARDED_AXES_OP(Op, T)                                                                        \
  template void detail::reduce_axes_sharded_into<Op, T>(const T*, const shape&, const strides*, const axes&,              \
                                                        const shard_layout&, axis_result_t<Op, T>*, std::int64_t,         \
                                                        ncclComm_t, cudaStream_t, int);
WARPFOLD_FOR_EACH_OP_AND_TYPE(WARPFOLD_INSTANTIATE_SHARDED_AXES_OP)

}  // namespace warpfold
