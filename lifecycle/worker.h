// The lifecycle worker: applies each bucket's lifecycle rules (lifecycle.h decides what is
// due) to the store, in passes, on a background thread the server owns.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-expire-general-considerations.html
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lock.html (lifecycle and locks)
//
// A pass walks every bucket that has an enabled rule, in name order:
//  - its versions, key by key, through Store::ListObjectVersions in pages (the same listing
//    serves unversioned buckets, whose objects are null versions):
//      * noncurrent versions (and noncurrent delete markers) that DueNoncurrentVersions names are
//        deleted for good (Store::DeleteObjectVersion);
//      * a key whose only version is a delete marker that DueExpiredDeleteMarker names loses it
//        (DeleteObjectVersion of the marker);
//      * a current version that CurrentVersionExpiry says is due is expired with
//        Store::DeleteObjectVersioned, as S3 does: deleted in an unversioned bucket, a delete
//        marker on top in an Enabled one (the version stays, noncurrent), a null delete marker
//        in a Suspended one. Before acting, the current version is read again, and nothing is
//        done when it changed since the listing (a client wrote the key meanwhile);
//  - its multipart uploads (Store::ListUploads in pages): those UploadAbortExpiry says are due
//    are aborted (Store::AbortUpload).
// Object lock is honoured, never bypassed: a version under a legal hold or a running retention
// is left alone (Store answers kObjectLocked; it is counted in PassStats::locked, not as an
// error), and a locked null version in a Suspended bucket is not replaced by a delete marker.
// A rule whose filter names tags selects the versions carrying them all (each version's own
// tags, as ListObjectVersions gives them; a current version's are read again before it is
// expired, since PutObjectTagging changes them in place). A listing is
// skipped when no enabled rule has an action for it, and starts at the longest prefix common to
// the rules that do (a bucket whose rules all name "logs/" lists only logs/).
//
// Bounded: a pass stops after max_actions_per_pass changes (PassStats::bounded); the next pass
// starts from the beginning and finds what is left. Each store call is its own short step (one
// page of at most page_size entries, or one delete), so the worker holds no lock between
// them and requests keep their speed. A pass keeps nothing on disk: after a restart the next
// pass finds the same work from the store alone. Races with clients are benign: something
// changed or gone meanwhile (kNoSuchBucket, kNoSuchVersion, kNoSuchUpload) is skipped.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "lifecycle/lifecycle.h"
#include "storage/store.h"

namespace cubby::lifecycle {

struct LifecycleOptions {
  // How long a lifecycle day lasts (a shorter one makes rules act in seconds, for tests).
  std::chrono::seconds day = kDay;
  // Time between the end of one pass and the start of the next (also before the first). A pass
  // that stopped at its bound is followed after min(interval, 1 s) instead, so a backlog
  // drains in bounded steps rather than one per interval.
  std::chrono::milliseconds interval = std::chrono::hours(1);
  // At most this many changes (deletes, delete markers, aborts) per pass. REQUIRES: > 0.
  size_t max_actions_per_pass = 1000;
  // Entries per listing page. REQUIRES: > 0.
  size_t page_size = 1000;
  // The clock rules are evaluated against, in Unix epoch milliseconds; null: the system clock.
  // (Object lock is always judged by the store against the real clock.)
  std::function<int64_t()> now_ms = nullptr;
};

// What a pass did.
struct PassStats {
  uint64_t buckets = 0;             // buckets with rules walked
  uint64_t expired_current = 0;     // current versions deleted or given a delete marker
  uint64_t expired_noncurrent = 0;  // noncurrent versions and markers deleted
  uint64_t removed_markers = 0;     // expired object delete markers removed
  uint64_t aborted_uploads = 0;     // incomplete multipart uploads aborted
  uint64_t locked = 0;              // due, but kept by object lock
  uint64_t errors = 0;              // store failures other than the benign races above
  std::string first_error;          // the first of them, for the log (no secrets: store text)
  bool bounded = false;             // stopped at max_actions_per_pass

  uint64_t actions() const {
    return expired_current + expired_noncurrent + removed_markers + aborted_uploads;
  }
};

// One pass over `store`, on the calling thread. `stop` (may be null) is asked between steps:
// true ends the pass early. Thread-safe with respect to everything else using the store.
PassStats RunPass(storage::Store& store, const LifecycleOptions& options,
                  const std::function<bool()>& stop = nullptr);

// Runs RunPass on its own thread, every interval, until Stop.
class Worker {
 public:
  // Called on the worker's thread after each pass (the server logs the passes that did
  // something); may be null.
  using PassReport = std::function<void(const PassStats&)>;

  // REQUIRES: `store` outlives the worker.
  Worker(storage::Store* store, LifecycleOptions options, PassReport report);
  ~Worker();  // Stop()
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Starts the thread; the first pass runs after one interval. At most once.
  void Start();
  // Asks a running pass to end at its next step and joins the thread: returns within one store
  // call, never after a sleep. Idempotent.
  void Stop();

 private:
  void Run();

  storage::Store* store_;
  const LifecycleOptions options_;
  const PassReport report_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace cubby::lifecycle
