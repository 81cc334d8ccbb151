#include "storage/stats_cache.h"

#include <cstring>

#include "storage/codec.h"

namespace cubby::storage::internal {
namespace {

// What one batch does to stats records, in its order.
struct StatsChange {
  std::string bucket;
  bool merge;  // else a Put or Delete: the entry is dropped
  int64_t objects = 0, bytes = 0;
};

class StatsChanges final : public rocksdb::WriteBatch::Handler {
 public:
  explicit StatsChanges(uint32_t default_cf_id) : cf_id_(default_cf_id) {}

  rocksdb::Status MergeCF(uint32_t cf, const rocksdb::Slice& key,
                          const rocksdb::Slice& value) override {
    if (std::optional<std::string> bucket = BucketOf(cf, key)) {
      StatsChange c{std::move(*bucket), true};
      // An undecodable delta is not ours to judge here (the merge operator refuses it on
      // read): drop the entry, so the next read goes to the DB.
      c.merge = codec::DecodeStatsDelta(std::string_view(value.data(), value.size()),
                                        &c.objects, &c.bytes);
      changes.push_back(std::move(c));
    }
    return rocksdb::Status::OK();
  }
  rocksdb::Status PutCF(uint32_t cf, const rocksdb::Slice& key, const rocksdb::Slice&) override {
    Dropped(cf, key);
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    Dropped(cf, key);
    return rocksdb::Status::OK();
  }
  rocksdb::Status SingleDeleteCF(uint32_t cf, const rocksdb::Slice& key) override {
    Dropped(cf, key);
    return rocksdb::Status::OK();
  }
  rocksdb::Status DeleteRangeCF(uint32_t cf, const rocksdb::Slice&,
                                const rocksdb::Slice&) override {
    if (cf == cf_id_) drop_all = true;  // never done to the default family; be safe if it is
    return rocksdb::Status::OK();
  }

  std::vector<StatsChange> changes;
  bool drop_all = false;

 private:
  std::optional<std::string> BucketOf(uint32_t cf, const rocksdb::Slice& key) const {
    static const std::string prefix = codec::StatsKey("");
    if (cf != cf_id_ || key.size() < prefix.size() ||
        std::memcmp(key.data(), prefix.data(), prefix.size()) != 0) {
      return std::nullopt;
    }
    return std::string(key.data() + prefix.size(), key.size() - prefix.size());
  }
  void Dropped(uint32_t cf, const rocksdb::Slice& key) {
    if (std::optional<std::string> bucket = BucketOf(cf, key)) {
      changes.push_back({std::move(*bucket), false});
    }
  }

  uint32_t cf_id_;
};

BucketStats StatsOf(int64_t objects, int64_t bytes) {
  return {static_cast<uint64_t>(objects < 0 ? 0 : objects),
          static_cast<uint64_t>(bytes < 0 ? 0 : bytes)};
}

}  // namespace

Result<BucketStats> StatsCache::Get(std::string_view bucket, const Loader& load) {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(std::string(bucket));
    if (it != entries_.end() && !it->second.loading) {
      return StatsOf(it->second.objects, it->second.bytes);
    }
    if (it == entries_.end()) {
      // This load fills the entry; writes from now on park their changes in it.
      Entry& entry = entries_[std::string(bucket)];
      entry.generation = generation = next_generation_++;
      any_ = true;
    }
  }
  Result<std::pair<BucketStats, uint64_t>> loaded = load();
  if (generation == 0) {  // another load fills the entry
    if (!loaded.ok()) return loaded.status();
    return loaded->first;
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(std::string(bucket));
  const bool ours = it != entries_.end() && it->second.generation == generation;
  if (!loaded.ok()) {
    if (ours) entries_.erase(it);
    return loaded.status();
  }
  if (!ours) return loaded->first;  // dropped while loading: not kept
  Entry& entry = it->second;
  entry.snapshot = loaded->second;
  entry.objects = static_cast<int64_t>(loaded->first.objects);
  entry.bytes = static_cast<int64_t>(loaded->first.bytes);
  for (const Delta& d : entry.parked) {
    if (d.sequence > entry.snapshot) {
      entry.objects += d.objects;
      entry.bytes += d.bytes;
    }
  }
  entry.parked.clear();
  entry.parked.shrink_to_fit();
  entry.loading = false;
  return StatsOf(entry.objects, entry.bytes);
}

void StatsCache::Applied(const rocksdb::WriteBatch& batch, uint32_t default_cf_id, bool ok) {
  // A load that starts after this check snapshots after this write, which it then includes.
  if (!any_) return;
  if (!ok) {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
    any_ = false;
    return;
  }
  StatsChanges parsed(default_cf_id);
  const bool readable = batch.Iterate(&parsed).ok() && batch.Data().size() >= 8;
  if (readable && parsed.changes.empty() && !parsed.drop_all) return;
  uint64_t sequence = 0;
  if (readable) {
    const auto* p = reinterpret_cast<const unsigned char*>(batch.Data().data());
    for (int i = 7; i >= 0; --i) sequence = (sequence << 8) | p[i];
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (!readable || parsed.drop_all) {
    entries_.clear();
    any_ = false;
    return;
  }
  for (const StatsChange& change : parsed.changes) {
    auto it = entries_.find(change.bucket);
    if (it == entries_.end()) continue;
    Entry& entry = it->second;
    if (!change.merge) {
      entries_.erase(it);
      continue;
    }
    if (entry.loading) {
      entry.parked.push_back({sequence, change.objects, change.bytes});
    } else if (sequence > entry.snapshot) {
      entry.objects += change.objects;
      entry.bytes += change.bytes;
    }
  }
  any_ = !entries_.empty();
}

size_t StatsCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

}  // namespace cubby::storage::internal
