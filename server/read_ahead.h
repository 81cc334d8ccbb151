// ReadAhead: pulls a response body's pieces from its BodySource on a second thread while the
// connection thread sends the pieces before them.
//
// Why: a body that is produced rather than sent from a file (an encrypted object's plaintext,
// decrypted segment by segment; any body on a TLS connection) costs the connection thread the
// production and the send in turn. With the production on its own thread the two overlap, so a
// large encrypted GET runs at the speed of the slower of the two instead of their sum.
//
// The source is called from the reader thread only, one call at a time, and never after the
// ReadAhead is destroyed: a BodySource need not be thread-safe, only callable from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "s3api/http.h"

namespace cubby::server {

class ReadAhead {
 public:
  // Starts reading `length` bytes of `source` ahead, into `pieces` buffers of `piece_size`
  // bytes. started() is false when no thread could be started (resource limits): the caller
  // then reads the source itself. REQUIRES: length > 0, piece_size > 0, pieces >= 2;
  // `source` outlives this object.
  ReadAhead(s3api::BodySource& source, uint64_t length, size_t piece_size, size_t pieces);
  // Stops the reader (after the Read it may be in) and joins it.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  bool started() const { return thread_.joinable(); }

  // Waits for the next piece, in order, and hands back the one before it to the reader. The
  // view stays valid until the next call. False once every piece was taken, or when the source
  // failed or ended early (then failed() is true); the pieces before a failure are all given.
  // REQUIRES: started(); one consumer thread.
  bool Next(std::string_view* piece);
  // True when the source returned an error or ended before `length` bytes.
  bool failed() const;

 private:
  void Run();

  s3api::BodySource& source_;
  uint64_t left_;  // bytes still to read; the reader thread's
  std::vector<std::vector<char>> buffers_;
  std::vector<size_t> sizes_;  // bytes in each filled buffer

  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t filled_ = 0;    // pieces filled so far (the ring slot is the count mod pieces)
  uint64_t taken_ = 0;     // pieces handed to the consumer so far
  bool holding_ = false;   // the consumer still uses piece taken_ - 1
  bool finished_ = false;  // the reader stopped: every byte read, or failed_
  bool failed_ = false;
  bool stop_ = false;      // the destructor asks the reader to stop
  std::thread thread_;
};

}  // namespace cubby::server
