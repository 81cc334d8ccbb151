#include "server/read_ahead.h"

#include <algorithm>
#include <system_error>

namespace cubby::server {

ReadAhead::ReadAhead(s3api::BodySource& source, uint64_t length, size_t piece_size,
                     size_t pieces)
    : source_(source), left_(length), buffers_(pieces), sizes_(pieces, 0) {
  const size_t first = static_cast<size_t>(std::min<uint64_t>(piece_size, length));
  for (std::vector<char>& b : buffers_) b.resize(first);
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error&) {
    // No thread (EAGAIN under a process or memory limit): started() says so and the caller
    // reads the source itself. This is the one exception std::thread reports failure with.
  }
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ReadAhead::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

void ReadAhead::Run() {
  const size_t count = buffers_.size();
  while (left_ > 0) {
    uint64_t slot;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // A slot is free once the consumer has taken and handed back the piece it last held.
      cv_.wait(lock, [&] { return stop_ || filled_ - (taken_ - (holding_ ? 1 : 0)) < count; });
      if (stop_) break;
      slot = filled_ % count;
    }
    std::vector<char>& buffer = buffers_[slot];
    const size_t want = static_cast<size_t>(std::min<uint64_t>(buffer.size(), left_));
    size_t got = 0;
    bool ok = true;
    while (got < want) {
      s3api::ReadResult r = source_.Read(buffer.data() + got, want - got);
      if (r.error != s3api::ErrorCode::kNone || r.n == 0 || r.n > want - got) {
        ok = false;
        break;
      }
      got += r.n;
    }
    left_ -= got;
    std::lock_guard<std::mutex> lock(mu_);
    if (got > 0) {
      sizes_[slot] = got;
      ++filled_;
    }
    if (!ok) {
      failed_ = true;
      break;
    }
    cv_.notify_all();
  }
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  cv_.notify_all();
}

bool ReadAhead::Next(std::string_view* piece) {
  std::unique_lock<std::mutex> lock(mu_);
  if (holding_) {
    holding_ = false;
    cv_.notify_all();
  }
  cv_.wait(lock, [&] { return filled_ > taken_ || finished_; });
  if (filled_ == taken_) return false;
  const size_t slot = static_cast<size_t>(taken_ % buffers_.size());
  *piece = std::string_view(buffers_[slot].data(), sizes_[slot]);
  ++taken_;
  holding_ = true;
  return true;
}

}  // namespace cubby::server
