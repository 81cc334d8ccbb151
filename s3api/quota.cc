#include "s3api/quota.h"

namespace cubby::s3api {

std::optional<QuotaRefusal> ExceededQuota(const storage::BucketQuota& quota,
                                          const storage::BucketStats& usage, uint64_t added_bytes,
                                          uint64_t added_objects) {
  // usage + added > limit, written so that neither side can overflow.
  auto passes = [](uint64_t used, uint64_t added, uint64_t limit) {
    return used > limit || added > limit - used;
  };
  if (quota.bytes && passes(usage.bytes, added_bytes, *quota.bytes)) {
    return QuotaRefusal{QuotaRefusal::Limit::kBytes, *quota.bytes};
  }
  if (quota.objects && added_objects > 0 && passes(usage.objects, added_objects, *quota.objects)) {
    return QuotaRefusal{QuotaRefusal::Limit::kObjects, *quota.objects};
  }
  return std::nullopt;
}

std::string QuotaMessage(const QuotaRefusal& refusal) {
  std::string unit;
  switch (refusal.limit) {
    case QuotaRefusal::Limit::kBytes:
      unit = refusal.value == 1 ? " byte" : " bytes";
      break;
    case QuotaRefusal::Limit::kObjects:
      unit = refusal.value == 1 ? " object" : " objects";
      break;
  }
  return "The bucket's quota of " + std::to_string(refusal.value) + unit + " would be exceeded.";
}

Failure CheckQuota(const Context& ctx, uint64_t added_bytes, std::optional<std::string_view> key) {
  // The cached record: a bucket without a quota costs no store read here.
  storage::Result<std::shared_ptr<const storage::BucketRecord>> bucket = RequestBucket(ctx);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  const storage::BucketQuota& quota = (*bucket)->quota;
  if (!quota.bytes && !quota.objects) return Failure::None();
  storage::Result<storage::BucketStats> usage = ctx.store->GetBucketStats(ctx.route.bucket);
  if (!usage.ok()) return StorageError(ctx, usage.status());
  std::optional<QuotaRefusal> refusal = ExceededQuota(quota, *usage, added_bytes, key ? 1 : 0);
  if (refusal && refusal->limit == QuotaRefusal::Limit::kObjects) {
    // Only an object the write adds counts: an overwrite of a current object replaces it.
    storage::Result<storage::ObjectMeta> current = ctx.store->HeadObject(ctx.route.bucket, *key);
    if (current.ok()) {
      refusal = ExceededQuota(quota, *usage, added_bytes, 0);
    } else if (current.status().code() != storage::Code::kNoSuchKey) {
      return StorageError(ctx, current.status());
    }
  }
  if (!refusal) return Failure::None();
  return ErrorResponse(ctx, ErrorCode::kQuotaExceeded, QuotaMessage(*refusal));
}

}  // namespace cubby::s3api
