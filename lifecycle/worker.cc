#include "lifecycle/worker.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "text/time.h"

namespace cubby::lifecycle {

namespace {

using storage::Code;

// Whether object lock keeps this version now (the store's own rule, for the one case where
// the store would not refuse: a null version replaced by a Suspended bucket's delete marker).
bool LockRuns(const storage::ObjectLockState& lock, int64_t now_ms) {
  return lock.legal_hold == storage::LegalHold::kOn ||
         (lock.retention.mode != storage::RetentionMode::kNone &&
          lock.retention.retain_until_ms > now_ms);
}

// Which listings a configuration needs, and the longest prefix every key they can act on
// starts with (the common prefix of the rules' filter prefixes): the listing starts there.
struct Scope {
  bool versions = false;  // some enabled rule expires versions or delete markers
  bool uploads = false;   // some enabled rule aborts uploads
  std::string versions_prefix;
  std::string uploads_prefix;
};

void NarrowPrefix(bool* seen, std::string* common, const std::string& prefix) {
  if (!*seen) {
    *seen = true;
    *common = prefix;
    return;
  }
  size_t n = 0;
  while (n < common->size() && n < prefix.size() && (*common)[n] == prefix[n]) ++n;
  common->resize(n);
}

Scope ScopeOf(const storage::LifecycleConfig& config) {
  Scope scope;
  for (const storage::LifecycleRule& r : config.rules) {
    if (!r.enabled) continue;
    if (r.expiration_days || r.expiration_date_ms || r.expired_object_delete_marker ||
        r.noncurrent_days) {
      NarrowPrefix(&scope.versions, &scope.versions_prefix, r.filter.prefix);
    }
    if (r.abort_incomplete_days) {
      NarrowPrefix(&scope.uploads, &scope.uploads_prefix, r.filter.prefix);
    }
  }
  return scope;
}

// One pass over one store; the state of the walk.
class Pass {
 public:
  Pass(storage::Store& store, const LifecycleOptions& options, const std::function<bool()>& stop)
      : store_(store), options_(options), stop_(stop) {}

  PassStats Run() {
    storage::Result<std::vector<storage::BucketRecord>> buckets = store_.ListBuckets();
    if (!buckets.ok()) {
      Error(buckets.status());
      return std::move(stats_);
    }
    for (const storage::BucketRecord& bucket : *buckets) {
      const Scope scope = ScopeOf(bucket.lifecycle);
      if (!scope.versions && !scope.uploads) continue;
      if (Done()) break;
      ++stats_.buckets;
      bucket_ = &bucket;
      if (scope.versions) WalkVersions(scope.versions_prefix);
      if (Done()) break;
      if (scope.uploads) WalkUploads(scope.uploads_prefix);
    }
    return std::move(stats_);
  }

 private:
  // True when the pass must end: stopped from outside, or at its bound.
  bool Done() {
    if (stats_.actions() >= options_.max_actions_per_pass) stats_.bounded = true;
    return stats_.bounded || (stop_ && stop_());
  }

  int64_t Now() const { return options_.now_ms ? options_.now_ms() : text::NowUnixMillis(); }

  void Error(const storage::Status& status) {
    if (stats_.errors++ == 0) stats_.first_error = status.ToString();
  }

  // A failure of a change: a race with a client (the thing is gone) is nothing, a lock is
  // counted, anything else is an error.
  void Failed(const storage::Status& status) {
    switch (status.code()) {
      case Code::kNoSuchBucket:
      case Code::kNoSuchKey:
      case Code::kNoSuchVersion:
      case Code::kNoSuchUpload:
        return;
      case Code::kObjectLocked:
        ++stats_.locked;
        return;
      case Code::kOk:
      case Code::kNoSuchAccessKey:
      case Code::kBucketAlreadyExists:
      case Code::kBucketNotEmpty:
      case Code::kPreconditionFailed:
      case Code::kInvalidArgument:
      case Code::kInvalidPart:
      case Code::kAborted:
      case Code::kIOError:
      case Code::kCorruption:
      case Code::kFormatTooNew:
      case Code::kNoSpace:
      case Code::kNoSuchEntity:
      case Code::kEntityAlreadyExists:
      case Code::kDeleteConflict:
      case Code::kLimitExceeded:
        break;
    }
    Error(status);
  }

  const storage::LifecycleConfig& config() const { return bucket_->lifecycle; }
  const std::string& name() const { return bucket_->name; }

  // Pages through the bucket's versions, handing each key's versions (newest first) to
  // ApplyToKey once all of them are listed. A key is never acted on while the listing's marker
  // is on it, so the next page starts past every version this pass changed.
  void WalkVersions(const std::string& prefix) {
    storage::VersionsQuery query;
    query.bucket = name();
    query.prefix = prefix;
    query.max_keys = options_.page_size;
    std::vector<storage::ObjectVersion> key_versions;
    for (;;) {
      storage::Result<storage::VersionsPage> page = store_.ListObjectVersions(query);
      if (!page.ok()) {
        Failed(page.status());
        return;
      }
      for (storage::ObjectVersion& v : page->versions) {
        if (!key_versions.empty() && key_versions.front().key != v.key) {
          ApplyToKey(key_versions);
          key_versions.clear();
          if (Done()) return;
        }
        key_versions.push_back(std::move(v));
      }
      if (!page->truncated) break;
      query.key_marker = std::move(page->next_key_marker);
      query.version_id_marker = std::move(page->next_version_id_marker);
      if (Done()) return;
    }
    if (!key_versions.empty()) ApplyToKey(key_versions);
  }

  static std::string_view IdOf(const storage::ObjectVersion& v) {
    return v.version_id.empty() ? storage::kNullVersionId : std::string_view(v.version_id);
  }

  void ApplyToKey(const std::vector<storage::ObjectVersion>& versions) {
    const std::string& key = versions.front().key;
    std::vector<VersionFacts> facts;
    facts.reserve(versions.size());
    for (const storage::ObjectVersion& v : versions) {
      facts.push_back({.is_delete_marker = v.delete_marker,
                       .size = v.size,
                       .tags = v.tags,
                       .last_modified_ms = v.last_modified_ms});
    }
    const int64_t now = Now();
    // Noncurrent versions first: their ids stay valid whatever the current one becomes.
    for (const DueVersion& due : DueNoncurrentVersions(config(), key, facts, options_.day, now)) {
      if (Done()) return;
      storage::Result<storage::DeleteResult> r =
          store_.DeleteObjectVersion(name(), key, IdOf(versions[due.index]));
      if (r.ok()) {
        ++stats_.expired_noncurrent;
      } else {
        Failed(r.status());
      }
    }
    if (Done()) return;
    if (DueExpiredDeleteMarker(config(), key, facts, options_.day, now)) {
      storage::Result<storage::DeleteResult> r =
          store_.DeleteObjectVersion(name(), key, IdOf(versions.front()));
      if (r.ok()) {
        ++stats_.removed_markers;
      } else {
        Failed(r.status());
      }
      return;
    }
    const storage::ObjectVersion& current = versions.front();
    if (current.delete_marker || !current.is_latest) return;
    ExpireCurrent(key, current, now);
  }

  void ExpireCurrent(const std::string& key, const storage::ObjectVersion& listed, int64_t now) {
    const ObjectFacts facts{.key = key,
                            .size = listed.size,
                            .tags = listed.tags,
                            .last_modified_ms = listed.last_modified_ms};
    std::optional<Expiry> expiry = CurrentVersionExpiry(config(), facts, options_.day);
    if (!expiry || expiry->at_ms > now) return;
    // The listing may be stale: act only on the version it showed, and only while its tags
    // (which change in place, PutObjectTagging) still let a rule expire it.
    storage::Result<storage::ObjectMeta> meta = store_.HeadObject(name(), key);
    if (!meta.ok()) {
      Failed(meta.status());
      return;
    }
    if (meta->version_id != listed.version_id ||
        meta->last_modified_ms != listed.last_modified_ms) {
      return;
    }
    if (meta->tags != listed.tags) {
      std::optional<Expiry> now_expiry = CurrentVersionExpiry(
          config(),
          {.key = key,
           .size = meta->size,
           .tags = meta->tags,
           .last_modified_ms = meta->last_modified_ms},
          options_.day);
      if (!now_expiry || now_expiry->at_ms > now) return;
    }
    if (bucket_->versioning == storage::VersioningState::kSuspended && meta->version_id.empty() &&
        LockRuns(meta->lock, text::NowUnixMillis())) {
      ++stats_.locked;  // the null delete marker would replace (and release) it
      return;
    }
    storage::Result<storage::DeleteResult> r = store_.DeleteObjectVersioned(name(), key);
    if (r.ok()) {
      ++stats_.expired_current;
    } else {
      Failed(r.status());
    }
  }

  void WalkUploads(const std::string& prefix) {
    storage::ListUploadsQuery query;
    query.bucket = name();
    query.prefix = prefix;
    query.max_uploads = options_.page_size;
    for (;;) {
      storage::Result<storage::ListUploadsPage> page = store_.ListUploads(query);
      if (!page.ok()) {
        Failed(page.status());
        return;
      }
      const int64_t now = Now();
      for (const storage::UploadRecord& upload : page->uploads) {
        if (Done()) return;
        std::optional<Expiry> expiry = UploadAbortExpiry(
            config(), {.key = upload.key, .initiated_ms = upload.initiated_ms}, options_.day);
        if (!expiry || expiry->at_ms > now) continue;
        storage::Status s = store_.AbortUpload(name(), upload.key, upload.upload_id);
        if (s.ok()) {
          ++stats_.aborted_uploads;
        } else {
          Failed(s);
        }
      }
      if (!page->truncated) return;
      query.key_marker = std::move(page->next_key_marker);
      query.upload_id_marker = std::move(page->next_upload_id_marker);
      if (Done()) return;
    }
  }

  storage::Store& store_;
  const LifecycleOptions& options_;
  const std::function<bool()>& stop_;
  const storage::BucketRecord* bucket_ = nullptr;
  PassStats stats_;
};

}  // namespace

PassStats RunPass(storage::Store& store, const LifecycleOptions& options,
                  const std::function<bool()>& stop) {
  return Pass(store, options, stop).Run();
}

Worker::Worker(storage::Store* store, LifecycleOptions options, PassReport report)
    : store_(store), options_(std::move(options)), report_(std::move(report)) {}

Worker::~Worker() { Stop(); }

void Worker::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void Worker::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Worker::Run() {
  const std::function<bool()> stop = [this] {
    std::lock_guard lock(mu_);
    return stopping_;
  };
  std::chrono::milliseconds wait = options_.interval;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (wake_.wait_for(lock, wait, [this] { return stopping_; })) return;
    }
    PassStats stats = RunPass(*store_, options_, stop);
    if (report_) report_(stats);
    wait = stats.bounded ? std::min(options_.interval, std::chrono::milliseconds(1000))
                         : options_.interval;
  }
}

}  // namespace cubby::lifecycle
