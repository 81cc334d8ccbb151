// StoreImpl: listing (store_impl.h). ListObjects and ListUploads are one delimiter walk
// (WalkListing) with their own names, markers and page fields.
#include <rocksdb/db.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "storage/codec.h"
#include "storage/store_impl.h"

namespace cubby::storage::internal {

// A listing's walk over one bucket's keys in a family (see StoreImpl::WalkListing).
struct ListingWalk {
  std::string_view bucket;
  CfIndex family;
  std::string base;            // the bucket's first key in the family; a name follows it
  std::string end;             // the first key past the bucket's
  std::string start;           // the key to seek to first
  std::string_view prefix;     // names outside it are not walked
  std::string_view delimiter;  // empty: no common prefixes
  std::string_view marker;     // a common prefix is listed only when it sorts after this
  size_t max;                  // entries plus common prefixes in a page; 0: an empty page
};

// The walk ListObjects and ListUploads share. Keys of a bucket are contiguous in a family and
// in byte order. For each key from w.start up to the end of w.prefix, name_of(key, &name) gives
// its name and whether it is listed (false: at or before the marker, skipped). A listed name
// holding w.delimiter after the prefix rolls up into the common prefix ending there: that is
// passed to on_prefix once (when it sorts after w.marker) and the iterator seeks past every key
// under it, so a page costs O(page size) seeks however many keys the prefixes hold. Any other
// name is on_entry(name, value). Returns whether the page stopped at w.max (truncated), or
// kNoSuchBucket.
template <typename NameOf, typename OnEntry, typename OnPrefix>
Result<bool> StoreImpl::WalkListing(const ListingWalk& w, NameOf&& name_of, OnEntry&& on_entry,
                                    OnPrefix&& on_prefix) {
  if (Status s = RequireBucket(w.bucket); !s.ok()) return s;
  if (w.max == 0) return false;  // S3 answers max-keys=0 with an empty, untruncated page
  std::string upper_key = w.end;
  if (!w.prefix.empty()) {
    std::string succ = codec::PrefixSuccessor(w.prefix);
    if (!succ.empty()) upper_key = w.base + succ;
  }
  rocksdb::Slice upper(upper_key);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper;  // the iterator also pins one implicit snapshot
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf(w.family)));
  bool truncated = false;
  size_t count = 0;
  it->Seek(w.start);
  while (it->Valid()) {
    std::string_view name;
    Result<bool> listed = name_of(ToView(it->key()), &name);
    if (!listed.ok()) return listed.status();
    if (!*listed) {
      it->Next();
      continue;
    }
    const size_t pos =
        w.delimiter.empty() ? std::string_view::npos : name.find(w.delimiter, w.prefix.size());
    if (pos != std::string_view::npos) {
      std::string common(name.substr(0, pos + w.delimiter.size()));
      // As string_view: clang 14 with libstdc++ 12 finds no string > string_view (fuzz/ builds).
      if (std::string_view(common) > w.marker) {
        if (count == w.max) {
          truncated = true;
          break;
        }
        on_prefix(common);
        ++count;
      }
      std::string succ = codec::PrefixSuccessor(common);
      if (succ.empty()) break;
      it->Seek(w.base + succ);
      continue;
    }
    if (count == w.max) {
      truncated = true;
      break;
    }
    Status s = on_entry(name, ToView(it->value()));
    if (!s.ok()) return s;
    ++count;
    it->Next();
  }
  if (!it->status().ok()) return FromRocks(it->status());
  return truncated;
}

Result<ListPage> StoreImpl::ListObjects(const ListQuery& q) {
  ListPage page;
  const std::string base = codec::ObjectPrefix(q.bucket);
  const ListingWalk walk{.bucket = q.bucket,
                         .family = kObjectsCf,
                         .base = base,
                         .end = codec::ObjectPrefixEnd(q.bucket),
                         .start = base + std::max(q.prefix, q.start_after),
                         .prefix = q.prefix,
                         .delimiter = q.delimiter,
                         .marker = q.start_after,
                         .max = q.max_keys};
  Result<bool> truncated = WalkListing(
      walk,
      [&](std::string_view key, std::string_view* name) -> Result<bool> {
        *name = key.substr(base.size());
        return *name > std::string_view(q.start_after);  // skips only start_after itself
      },
      [&](std::string_view name, std::string_view value) {
        Result<codec::ObjectSummary> summary = codec::DecodeObjectSummary(value);
        if (!summary.ok()) return summary.status();
        page.objects.push_back(ListEntry{std::string(name), summary->size, std::move(summary->etag),
                                         summary->last_modified_ms,
                                         std::move(summary->storage_class)});
        page.last = page.objects.back().key;
        return Status::Ok();
      },
      [&](const std::string& common) {
        page.common_prefixes.push_back(common);
        page.last = common;
      });
  if (!truncated.ok()) return truncated.status();
  page.truncated = *truncated;
  return page;
}

// Multipart uploads in a bucket, by key then initiation time (upload ids sort by time).
Result<ListUploadsPage> StoreImpl::ListUploads(const ListUploadsQuery& q) {
  ListUploadsPage page;
  const std::string base = codec::UploadPrefix(q.bucket);
  const std::string start = q.key_marker.empty() || q.key_marker < q.prefix
                                ? base + q.prefix
                                : codec::UploadKey(q.bucket, q.key_marker, q.upload_id_marker);
  const ListingWalk walk{.bucket = q.bucket,
                         .family = kUploadsCf,
                         .base = base,
                         .end = codec::UploadPrefixEnd(q.bucket),
                         .start = start,
                         .prefix = q.prefix,
                         .delimiter = q.delimiter,
                         .marker = q.key_marker,
                         .max = q.max_uploads};
  std::string key, id;  // of the entry being walked
  Result<bool> truncated = WalkListing(
      walk,
      [&](std::string_view raw, std::string_view* name) -> Result<bool> {
        if (!codec::DecodeUploadKeyName(q.bucket, raw, &key, &id)) {
          return Status(Code::kCorruption, "bad upload key");
        }
        *name = key;
        // Entries of key_marker itself come only after upload_id_marker (none without one).
        if (key != q.key_marker) return key > q.key_marker;
        return !q.upload_id_marker.empty() && id > q.upload_id_marker;
      },
      [&](std::string_view, std::string_view value) {
        Result<UploadRecord> upload = codec::DecodeUpload(value);
        if (!upload.ok()) return upload.status();
        page.next_key_marker = key;
        page.next_upload_id_marker = id;
        page.uploads.push_back(std::move(upload).value());
        return Status::Ok();
      },
      [&](const std::string& common) {
        page.common_prefixes.push_back(common);
        page.next_key_marker = common;
        page.next_upload_id_marker.clear();
      });
  if (!truncated.ok()) return truncated.status();
  page.truncated = *truncated;
  if (!page.truncated) {
    page.next_key_marker.clear();
    page.next_upload_id_marker.clear();
  }
  return page;
}

}  // namespace cubby::storage::internal
