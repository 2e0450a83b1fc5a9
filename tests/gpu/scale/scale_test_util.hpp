// What the host-array and sharded tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>

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

}  // namespace scale_test
