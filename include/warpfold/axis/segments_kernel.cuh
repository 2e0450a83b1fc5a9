// Segments given by begin/end offsets in device memory (cub::DeviceSegmentedReduce's
// contract), whatever their lengths: millions of one-element segments, a few of millions of
// elements, or both in one call.
//
// The host sees only the number of segments, not their lengths (that would take a copy back),
// so the kernel balances itself, in one launch:
// - Blocks claim batches of segments from a cursor. Each warp reads the offsets of its groups
//   of up to 32 segments with coalesced loads, all in flight at once, and reduces a group's
//   segments (fold_segment_group): a segment of a few elements by the lane that read it, the
//   others by teams of lanes sized by the longest, several segments side by side. A warp that
//   took segments one at a time would wait on two memory round trips per segment (offsets,
//   then data): at a mean length of 64 floats that is a third of the read ceiling.
// - A segment too long for one warp (segments_shape::long_items) is listed in scratch memory
//   instead (segment_list), cut into chunks that are numbered in one sequence. When the
//   cursor runs dry, every warp turns to the list and claims chunks until none is left
//   (help_with_listed_segments), so a few huge segments are spread over the whole GPU. The
//   last chunk of a segment to finish combines the chunks' partials in chunk order, so sums
//   are the same bits on every run.
// - A warp waits for more chunks only while some claimed batch is unfinished, and a batch is
//   claimed only by a running block: nothing waits on a block that has not started, so the
//   kernel cannot deadlock when other work holds part of the GPU.
// The last block to leave resets the list's counters (zero at rest: device/scratch.hpp).
#pragma once

#include <cuda/atomic>

#include <cstdint>

#include "warpfold/blocks/block_reduce.cuh"
#include "warpfold/blocks/dependent_launch.cuh"
#include "warpfold/blocks/finish.cuh"
#include "warpfold/blocks/load.cuh"
#include "warpfold/blocks/thread_reduce.cuh"
#include "warpfold/blocks/warp_reduce.cuh"
#include "warpfold/device/scratch.hpp"

namespace warpfold::axis {

inline constexpr int segments_block = 256;
inline constexpr int segments_warps = segments_block / blocks::warp_size;
// Segments of up to this many elements are read by one lane each, all loads at once.
inline constexpr int lone_lane_items = 8;
// Whether an accumulator is one or two registers (sums, products, extrema of every type), not
// argmin/argmax's value and index: only such kernels can afford more loads in flight per lane
// (team_loads_in_flight, segment_vector_loads) within 64 registers.
template <typename Acc>
inline constexpr bool small_accumulator = sizeof(Acc) <= sizeof(double);
// Loads in flight per lane in a warp's teams (single elements: segments start anywhere).
// Sixteen rather than eight for small accumulators: teams half as wide, so twice the segments
// side by side and half the round trips per group (f32 sums, mean length 64: 41% -> 49% of
// the bandwidth of warpfold's own sum; mean 16: 50% -> 52%; H100, 2026-11-24; the sums'
// kernel stays at 64 registers, with 16-24 bytes of spill).
// Raising the lone lane's share with it cost the shortest segments 10% (mean length 1, 4).
// Eight for argmin/argmax, which would need 115-128 registers.
template <typename Acc>
inline constexpr int team_loads_in_flight = small_accumulator<Acc> ? 16 : 8;

// What the host decides from the segment count and the element size (axis/launch.cuh).
struct segments_shape {
  std::int64_t segments;
  int group;                   // segments per warp group: 1, 2, 4, ... 32
  int groups_per_warp;         // groups per warp in one claimed batch (at most max_groups_per_warp)
  std::int64_t long_items;     // a segment at least this long goes on the list
  std::int64_t chunk_items;    // the smallest chunk of a listed segment
  int list_capacity;           // listed segments, at most
  std::int64_t slot_capacity;  // chunks of listed segments, at most
  WARPFOLD_HOST_DEVICE std::int64_t batch() const { return std::int64_t(segments_warps) * group * groups_per_warp; }
};

inline constexpr int max_groups_per_warp = 4;
// The most chunks one listed segment is cut into; longer segments get longer chunks.
inline constexpr std::int64_t max_chunks_per_segment = 1024;

struct listed_segment {
  std::int64_t segment;      // its index, where its output goes
  std::int64_t begin;        // its first element
  std::int64_t length;       // elements
  std::int64_t chunk_items;  // elements per chunk (the last may be shorter)
  std::int64_t chunks;       // 1: the warp that takes it writes the output directly
  std::int64_t first_slot;   // its chunks are work items first_slot, first_slot + 1, ...
};

// The list in scratch memory. Counters (zero at rest), in 4-byte words from scratch.counters:
//   0-1  claim cursor: segments claimed in batches
//   2-3  segments scanned: claimed batches whose long segments are all listed
//   4-5  allocation: listed segments (high word) and chunks (low word), taken in one atomic so
//        that a segment's index and its chunks come together
//   6    work cursor: chunks claimed by warps
//   7    unused (keeps what follows 8-byte aligned)
//   then the arrivals of each listed segment's chunks, and for each chunk (work item) its
//   owner: listed segment + 1, or skipped_slot where a segment did not fit, 0 until written.
// Partials: the listed segments, then one partial per chunk.
struct segment_list_layout {
  static constexpr std::int64_t fixed_counters = 8;
  static std::int64_t counters(const segments_shape& s) {
    return fixed_counters + std::int64_t(s.list_capacity) + s.slot_capacity;
  }
  WARPFOLD_HOST_DEVICE static std::int64_t entries_bytes(const segments_shape& s) {
    return (std::int64_t(s.list_capacity) * std::int64_t(sizeof(listed_segment)) + 255) / 256 * 256;
  }
  template <typename Acc>
  static std::int64_t partial_bytes(const segments_shape& s) {
    return entries_bytes(s) + s.slot_capacity * std::int64_t(sizeof(Acc));
  }
};

inline constexpr unsigned int skipped_slot = 0xffffffffu;

template <typename T>
WARPFOLD_DEVICE T volatile_load(const T* p) {
  return *const_cast<const volatile T*>(p);
}

template <typename Acc>
struct segment_list {
  unsigned long long* claim_cursor;
  unsigned long long* scanned;
  unsigned long long* allocation;
  unsigned int* work_cursor;
  unsigned int* arrivals;
  unsigned int* owner;
  listed_segment* entries;
  Acc* partials;
  int capacity;
  std::int64_t slot_capacity;

  WARPFOLD_DEVICE static segment_list in(const device::scratch_view& scratch, const segments_shape& s) {
    segment_list l;
    auto* wide = reinterpret_cast<unsigned long long*>(scratch.counters);  // 8-byte aligned (offset 16)
    l.claim_cursor = wide;
    l.scanned = wide + 1;
    l.allocation = wide + 2;
    l.work_cursor = scratch.counters + 6;
    l.arrivals = scratch.counters + segment_list_layout::fixed_counters;
    l.owner = l.arrivals + s.list_capacity;
    l.entries = reinterpret_cast<listed_segment*>(scratch.partials);
    l.partials = reinterpret_cast<Acc*>(scratch.partials + segment_list_layout::entries_bytes(s));
    l.capacity = s.list_capacity;
    l.slot_capacity = s.slot_capacity;
    return l;
  }

  // Puts a segment on the list; false when it does not fit (the caller reduces it itself).
  WARPFOLD_DEVICE bool add(std::int64_t segment, std::int64_t begin, std::int64_t length,
                           std::int64_t min_chunk_items) const {
    listed_segment e{segment, begin, length, min_chunk_items, 1, 0};
    if (e.chunk_items < (length + max_chunks_per_segment - 1) / max_chunks_per_segment)
      e.chunk_items = (length + max_chunks_per_segment - 1) / max_chunks_per_segment;
    e.chunks = (length + e.chunk_items - 1) / e.chunk_items;
    const unsigned long long taken = atomicAdd(allocation, (1ull << 32) | static_cast<unsigned long long>(e.chunks));
    const std::int64_t j = static_cast<std::int64_t>(taken >> 32);
    e.first_slot = static_cast<std::int64_t>(taken & 0xffffffffull);
    const bool fits = j < capacity && e.first_slot + e.chunks <= slot_capacity;
    if (fits) {
      entries[j] = e;
      __threadfence();  // the entry before its chunks' owners
    }
    // Every work item below the allocation gets an owner, so that no claimer waits forever.
    const std::int64_t end = e.first_slot + e.chunks < slot_capacity ? e.first_slot + e.chunks : slot_capacity;
    for (std::int64_t w = e.first_slot; w < end; ++w) atomicExch(owner + w, fits ? static_cast<unsigned int>(j + 1) : skipped_slot);
    return fits;
  }

  // Chunks allocated so far (work items below this have, or soon get, an owner).
  WARPFOLD_DEVICE std::int64_t work_allocated() const {
    return static_cast<std::int64_t>(volatile_load(allocation) & 0xffffffffull);
  }
};

// Reduces `length` elements from `run` with `team` lanes (rank `rank`): 16-byte loads when the
// team is the whole warp; else single elements, Loads in flight per lane.
// Eight 16-byte loads in flight for small accumulators, so that a segment of a few thousand
// elements is one or two round trips (f32 sums, mean length 1024, warm data: 62% -> 67% of
// the bandwidth of warpfold's own sum, H100, 2026-11-24; the bench, on cold data, showed no
// change). Four for argmin/argmax, whose value-and-index accumulators
// would take the kernel from 64 to 98 registers (f32) and halve the blocks per SM.
template <typename Acc>
inline constexpr int segment_vector_loads = small_accumulator<Acc> ? 8 : 4;

template <int Loads, typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE Acc fold_run(const T* run, std::int64_t length, int team, int rank, Acc acc, Op op, ToAcc to_acc) {
  if (team == blocks::warp_size)
    return blocks::thread_reduce_vectorized<segment_vector_loads<Acc>, blocks::streaming_vector_load>(
        run, length, rank, team, op, acc, to_acc);
  constexpr int U = Loads;
  for (std::int64_t base = rank; base < length; base += std::int64_t(team) * U) {
    T x[U] = {};
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * team < length) x[u] = run[base + u * team];
#pragma unroll
    for (int u = 0; u < U; ++u)
      if (base + u * team < length) acc = op(acc, to_acc(x[u], base + u * team));
  }
  return acc;
}

// Lane of the k-th (from 0) set bit of mask; k < popc(mask).
WARPFOLD_DEVICE int nth_set_lane(unsigned int mask, int k) {
  int lane = 0;
#pragma unroll
  for (int width = 16; width > 0; width /= 2) {
    const int below = __popc(mask & ((1u << (lane + width)) - 1u) & ~((1u << lane) - 1u));
    if (k >= below) k -= below, lane += width;
  }
  return lane;
}

// One warp's group of `count` segments from `first`, whose offsets lane i holds for segment
// first + i. Segments of at least long_items go on the list. Segments of at most
// lone_lane_items elements are reduced by the lane that holds them, all at once. The rest go
// to teams of `team` lanes (the power of two that covers the longest of them with
// team_loads_in_flight loads per lane, at most 32), 32 / team segments side by side.
template <typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE void fold_segment_group(const T* in, std::int64_t first, int count, std::int64_t begin, std::int64_t end,
                                        const segments_shape& shape, const segment_list<Acc>& list, Acc* out, Op op,
                                        ToAcc to_acc) {
  const int lane = threadIdx.x % blocks::warp_size;
  const bool mine = lane < count;
  std::int64_t length = mine && end > begin ? end - begin : 0;
  const bool listed = length >= shape.long_items && list.add(first + lane, begin, length, shape.chunk_items);
  if (listed) length = 0;

  const bool short_run = mine && !listed && length <= lone_lane_items;
  if (short_run)
    out[first + lane] = fold_run<lone_lane_items>(in + begin, length, 1, 0, op.template identity<Acc>(), op, to_acc);

  const unsigned int rest = __ballot_sync(blocks::full_warp_mask, mine && !listed && !short_run);
  if (rest == 0u) return;
  std::int64_t longest = short_run ? 0 : length;
#pragma unroll
  for (int delta = blocks::warp_size / 2; delta > 0; delta /= 2) {
    const std::int64_t other = __shfl_xor_sync(blocks::full_warp_mask, longest, delta);
    longest = other > longest ? other : longest;
  }
  int team = 2;
  while (team < blocks::warp_size && std::int64_t(team) * team_loads_in_flight<Acc> < longest) team *= 2;
  const int teams = blocks::warp_size / team;
  const int rank = lane % team;
  const int left = __popc(rest);
  for (int round = 0; round < left; round += teams) {
    const int k = round + lane / team;  // this team's segment among the rest
    const int owner = nth_set_lane(rest, k < left ? k : left - 1);
    const std::int64_t run_begin = __shfl_sync(blocks::full_warp_mask, begin, owner);
    const std::int64_t owners_length = __shfl_sync(blocks::full_warp_mask, length, owner);  // every lane shuffles
    const std::int64_t run_length = k < left ? owners_length : 0;
    Acc acc = fold_run<team_loads_in_flight<Acc>>(in + run_begin, run_length, team, rank, op.template identity<Acc>(), op, to_acc);
    acc = blocks::group_reduce(acc, op, team);
    if (rank == 0 && k < left) out[first + owner] = acc;
  }
}

// Chunk `slot` of the listed segments, by one warp. The last chunk of a segment to finish
// combines the partials in chunk order.
template <typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE void fold_listed_chunk(const T* in, const segment_list<Acc>& list, unsigned int j, std::int64_t slot,
                                       Acc* out, Op op, ToAcc to_acc) {
  const int lane = threadIdx.x % blocks::warp_size;
  // Lane 0 read the chunk's owner with acquire order (help_with_listed_segments), so its own
  // read of the entry is ordered after it; the other lanes get the entry from lane 0, with no
  // fence of their own.
  listed_segment e{};
  if (lane == 0) e = blocks::load_from_other_blocks(list.entries + j);
  e.segment = __shfl_sync(blocks::full_warp_mask, e.segment, 0);
  e.begin = __shfl_sync(blocks::full_warp_mask, e.begin, 0);
  e.length = __shfl_sync(blocks::full_warp_mask, e.length, 0);
  e.chunk_items = __shfl_sync(blocks::full_warp_mask, e.chunk_items, 0);
  e.chunks = __shfl_sync(blocks::full_warp_mask, e.chunks, 0);
  e.first_slot = __shfl_sync(blocks::full_warp_mask, e.first_slot, 0);
  const std::int64_t chunk = slot - e.first_slot;
  const std::int64_t first = chunk * e.chunk_items;
  const std::int64_t items = e.length - first < e.chunk_items ? e.length - first : e.chunk_items;
  // Eight 16-byte loads in flight per lane: a chunk is a warp's only work until its next claim.
  Acc acc = blocks::thread_reduce_vectorized<8, blocks::streaming_vector_load>(
      in + e.begin + first, items, lane, blocks::warp_size, op, op.template identity<Acc>(),
      blocks::shift_index<ToAcc>{to_acc, first});
  acc = blocks::warp_reduce(acc, op);
  if (e.chunks == 1) {
    if (lane == 0) out[e.segment] = acc;
    return;
  }
  bool last = false;
  if (lane == 0) {
    list.partials[slot] = acc;
    __threadfence();
    last = blocks::take_last_ticket(list.arrivals + j, static_cast<unsigned int>(e.chunks));
  }
  if (!__shfl_sync(blocks::full_warp_mask, last, 0)) return;
  __threadfence();  // pairs with the other chunks' fences
  acc = op.template identity<Acc>();
  for (std::int64_t c = lane; c < e.chunks; c += blocks::warp_size)
    acc = op(acc, blocks::load_from_other_blocks(list.partials + e.first_slot + c));
  acc = blocks::warp_reduce(acc, op);
  if (lane == 0) out[e.segment] = acc;
}

// Each warp takes chunks of listed segments until every segment is scanned and every chunk
// taken. Claims are one sequence (the work cursor): a warp holds its claim until the chunk
// exists or every batch is scanned, so no chunk is claimed and dropped.
template <typename T, typename Acc, typename Op, typename ToAcc>
WARPFOLD_DEVICE void help_with_listed_segments(const T* in, const segments_shape& shape, const segment_list<Acc>& list,
                                               Acc* out, Op op, ToAcc to_acc) {
  const int lane = threadIdx.x % blocks::warp_size;
  unsigned int claim = 0;
  if (lane == 0) claim = atomicAdd(list.work_cursor, 1u);
  for (;;) {
    unsigned int owner = 0;  // 0: nothing left
    // Most claims find their owner already written (every batch scanned, the list complete):
    // one acquiring load then says so, where the waiting loop below costs two more round trips
    // and a fence before it even reads the owner.
    if (lane == 0 && claim < list.slot_capacity) {
      owner = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(list.owner[claim]).load(cuda::memory_order_acquire);
      if (owner == skipped_slot) owner = 0;
    }
    if (lane == 0 && owner == 0) {
      for (unsigned int sleep_ns = 32;; sleep_ns = sleep_ns < 1024 ? 2 * sleep_ns : sleep_ns) {
        if (claim >= list.slot_capacity) break;  // no listed segment reaches so far
        const bool all_scanned = volatile_load(list.scanned) == static_cast<unsigned long long>(shape.segments);
        __threadfence();  // every segment counted as scanned is allocated by now
        if (claim < list.work_allocated()) {
          while ((owner = volatile_load(list.owner + claim)) == 0u) __nanosleep(32);
          if (owner != skipped_slot) {
            __threadfence();  // the owner before its entry, as the acquiring load above does
            break;
          }
          owner = 0;
          claim = atomicAdd(list.work_cursor, 1u);
          continue;
        }
        if (all_scanned) break;
        __nanosleep(sleep_ns);  // a claimed batch is still being scanned by a running warp
      }
    }
    owner = __shfl_sync(blocks::full_warp_mask, owner, 0);
    const unsigned int slot = __shfl_sync(blocks::full_warp_mask, claim, 0);
    if (owner == 0) return;
    if (lane == 0) claim = atomicAdd(list.work_cursor, 1u);  // the next, while this one is read
    fold_listed_chunk(in, list, owner - 1, slot, out, op, to_acc);
  }
}

template <typename T, typename Acc, typename Op, typename ToAcc>
__global__ void __launch_bounds__(segments_block)
    segments_kernel(const T* in, const std::int64_t* begins, const std::int64_t* ends, segments_shape shape, Acc* out,
                    Op op, ToAcc to_acc, device::scratch_view scratch) {
  blocks::wait_for_prior_kernels();
  const segment_list<Acc> list = segment_list<Acc>::in(scratch, shape);
  const std::int64_t batch = shape.batch();
  const int warp = threadIdx.x / blocks::warp_size, lane = threadIdx.x % blocks::warp_size;

  __shared__ long long batch_first;
  if (threadIdx.x == 0) batch_first = static_cast<long long>(atomicAdd(list.claim_cursor, batch));
  __syncthreads();
  for (std::int64_t first = batch_first; first < shape.segments; first = batch_first) {
    __syncthreads();  // everyone has read batch_first
    // Claim the next batch now; the answer is needed only after this one.
    unsigned long long next = 0;
    if (threadIdx.x == 0) next = atomicAdd(list.claim_cursor, batch);
    // Every group's offsets first, so that their loads are in flight together.
    std::int64_t begin[max_groups_per_warp], end[max_groups_per_warp];
#pragma unroll
    for (int g = 0; g < max_groups_per_warp; ++g) {
      const std::int64_t s = first + (std::int64_t(g) * segments_warps + warp) * shape.group + lane;
      const bool mine = g < shape.groups_per_warp && lane < shape.group && s < shape.segments;
      begin[g] = mine ? begins[s] : 0;
      end[g] = mine ? ends[s] : 0;
    }
#pragma unroll
    for (int g = 0; g < max_groups_per_warp; ++g) {
      const std::int64_t group_first = first + (std::int64_t(g) * segments_warps + warp) * shape.group;
      const std::int64_t left = shape.segments - group_first;
      if (g >= shape.groups_per_warp || left <= 0) break;
      fold_segment_group(in, group_first, static_cast<int>(left < shape.group ? left : shape.group), begin[g], end[g],
                         shape, list, out, op, to_acc);
    }
    __threadfence();  // this batch's listed segments before its count
    __syncthreads();

    if (threadIdx.x == 0) {
      const std::int64_t left = shape.segments - first;
      atomicAdd(list.scanned, static_cast<unsigned long long>(left < batch ? left : batch));
      batch_first = static_cast<long long>(next);
    }
    __syncthreads();
  }

  help_with_listed_segments(in, shape, list, out, op, to_acc);

  // The last block out resets the list for the next launch.
  if (!blocks::block_arrives_last(scratch.arrivals, gridDim.x)) return;
  const std::int64_t work = list.work_allocated();
  for (std::int64_t w = threadIdx.x; w < work && w < list.slot_capacity; w += blockDim.x) list.owner[w] = 0u;
  __syncthreads();  // everyone has read the allocation
  if (threadIdx.x == 0) {
    *list.claim_cursor = 0ull, *list.scanned = 0ull, *list.allocation = 0ull;
    *list.work_cursor = 0u;
  }
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) blocks::record_launch_finished(scratch.finished, scratch.finished_after);
}

}  // namespace warpfold::axis
