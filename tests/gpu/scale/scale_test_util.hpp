// What the host-array and sharded tests share. The communicator helpers need NCCL: the
// sharded tests define WARPFOLD_TEST_NCCL.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#ifdef WARPFOLD_TEST_NCCL
#include <nccl.h>
#endif

#include <warpfold/error.hpp>

namespace scale_test {

// `call` must throw warpfold::invalid_argument, with `words` in its message.
template <typename Call>
void expect_refused(Call call, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "accepted; expected an error saying '" << words << "'";
  } catch (const warpfold::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

#ifdef WARPFOLD_TEST_NCCL
inline int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

// One communicator per GPU in `devices` (ncclCommInitAll: one process, one thread per rank).
struct communicators {
  std::vector<int> devices;
  std::vector<ncclComm_t> comms;
  communicators(communicators&& other) noexcept : devices(std::move(other.devices)), comms(std::move(other.comms)) {
    other.comms.clear();
  }
  explicit communicators(std::vector<int> d) : devices(std::move(d)), comms(devices.size()) {
    if (ncclCommInitAll(comms.data(), static_cast<int>(devices.size()), devices.data()) != ncclSuccess) comms.clear();
  }
  ~communicators() {
    for (ncclComm_t c : comms) (void)ncclCommDestroy(c);
  }
  bool ok() const { return !comms.empty(); }
};

// A communicator of one rank on the current device.
inline communicators on_current_device() {
  int device = 0;
  (void)cudaGetDevice(&device);
  return communicators({device});
}

// A communicator of every GPU of the machine, one rank each.
inline communicators on_every_gpu() {
  std::vector<int> devices(static_cast<std::size_t>(device_count()));
  for (std::size_t d = 0; d < devices.size(); ++d) devices[d] = static_cast<int>(d);
  return communicators(devices);
}

// Runs body(rank) on a thread per rank, each with its rank's device current.
inline void on_every_rank(const communicators& c, const std::function<void(int)>& body) {
  std::vector<std::thread> threads;
  for (std::size_t r = 0; r < c.devices.size(); ++r)
    threads.emplace_back([&, r] {
      (void)cudaSetDevice(c.devices[r]);
      body(static_cast<int>(r));
    });
  for (std::thread& t : threads) t.join();
}

#endif

}  // namespace scale_test
