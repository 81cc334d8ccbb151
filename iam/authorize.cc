#include "iam/authorize.h"

#include <array>
#include <cstdio>
#include <ctime>
#include <forward_list>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "iam/acl.h"
#include "iam/policy.h"
#include "storage/users.h"
#include "text/iso8601.h"
#include "text/time.h"
#include "text/uri.h"

namespace cubby::iam {

namespace {

bool ModeAllows(ModeNeed need, storage::AccessMode mode) {
  switch (need) {
    case ModeNeed::kRead:
      return storage::CanRead(mode);
    case ModeNeed::kWrite:
      return storage::CanWrite(mode);
    case ModeNeed::kAnyMode:
      return mode != storage::AccessMode::kNone;
    case ModeNeed::kService:
    case ModeNeed::kAdmin:
      break;
  }
  return false;
}

Decision Of(bool allowed) { return {allowed ? Verdict::kAllow : Verdict::kDeny, {}}; }

// A COSI key: its grants decide.
Decision AuthorizeGrants(const storage::AccessKeyRecord& key, Action action,
                         const Resource& resource) {
  const ModeNeed need = Info(action).mode;
  if (need == ModeNeed::kService) {
    return Of(resource.bucket.empty() || key.grants.contains(std::string(resource.bucket)));
  }
  if (need == ModeNeed::kAdmin) return Of(false);
  if (resource.bucket.empty()) return Of(true);  // a service-level request cubby does not implement
  auto grant = key.grants.find(std::string(resource.bucket));
  return Of(grant != key.grants.end() && ModeAllows(need, grant->second));
}

}  // namespace

// What evaluation reads besides the request: bucket records and users, as the store last
// answered them, with their policies parsed. An entry counts while the store's
// AccessGeneration() still has the value it had before the entry was read: any change to a
// bucket, a user or a key makes every entry stale, and the next request reads the store again
// (re-parsing a policy only when its text changed). Entries are immutable and shared: a reader
// keeps its shared_ptr while it evaluates, whatever a writer replaces meanwhile.
class PolicyCache {
 public:
  struct BucketPolicy {
    std::string text;
    std::optional<Policy> policy;  // nullopt: the text does not parse (counts as none)
    bool is_public = false;
  };
  struct BucketEntry {
    uint64_t generation = 0;
    storage::BucketRecord record;
    std::shared_ptr<const BucketPolicy> policy;  // null: the bucket has no policy
  };
  struct UserPolicies {
    std::map<std::string, std::string> texts;  // as stored: name -> document
    std::vector<Policy> policies;              // those that parse
  };
  struct UserEntry {
    uint64_t generation = 0;
    std::string user_id, name, arn;
    std::vector<std::pair<std::string, std::string>> tags;  // aws:PrincipalTag
    std::shared_ptr<const UserPolicies> policies;
  };

  // The bucket of `resource`: its record (resource.record when the caller read it; that one
  // is not kept, as it may be older than the generation) and parsed policy. kNoSuchBucket and
  // storage failures as GetBucket answers them.
  storage::Result<std::shared_ptr<const BucketEntry>> Bucket(storage::Store* store,
                                                             const Resource& resource) {
    const uint64_t generation = store->AccessGeneration();
    std::shared_ptr<const BucketEntry> old;
    {
      std::shared_lock lock(mu_);
      auto it = buckets_.find(resource.bucket);
      if (it != buckets_.end()) old = it->second;
    }
    if (old && old->generation == generation && resource.record == nullptr) return old;
    auto entry = std::make_shared<BucketEntry>();
    entry->generation = generation;
    if (resource.record != nullptr) {
      entry->record = *resource.record;
    } else {
      storage::Result<storage::BucketRecord> read = store->GetBucket(resource.bucket);
      if (!read.ok()) return read.status();
      entry->record = std::move(read).value();
    }
    if (!entry->record.policy.empty()) {
      if (old && old->policy && old->policy->text == entry->record.policy) {
        entry->policy = old->policy;
      } else {
        auto parsed = std::make_shared<BucketPolicy>();
        parsed->text = entry->record.policy;
        storage::Result<Policy> policy =
            Parse(parsed->text, {.kind = PolicyKind::kBucket, .bucket = resource.bucket});
        if (policy.ok()) {
          parsed->is_public = IsPublic(*policy);
          parsed->policy = std::move(policy).value();
        }
        entry->policy = std::move(parsed);
      }
    }
    if (resource.record != nullptr) return std::shared_ptr<const BucketEntry>(std::move(entry));
    std::unique_lock lock(mu_);
    if (buckets_.size() >= kMaxEntries) buckets_.clear();
    buckets_.insert_or_assign(std::string(resource.bucket), entry);
    return std::shared_ptr<const BucketEntry>(std::move(entry));
  }

  // The user of `user_id` with its parsed policies. A user that does not exist (tests plant
  // keys whose user was never made) has no name and no policies. Storage failures as
  // GetUserById answers them.
  storage::Result<std::shared_ptr<const UserEntry>> User(storage::Store* store,
                                                         std::string_view user_id) {
    const uint64_t generation = store->AccessGeneration();
    std::shared_ptr<const UserEntry> old;
    {
      std::shared_lock lock(mu_);
      auto it = users_.find(user_id);
      if (it != users_.end()) old = it->second;
    }
    if (old && old->generation == generation) return old;
    storage::Result<storage::UserRecord> user = store->GetUserById(user_id);
    if (!user.ok() && user.status().code() != storage::Code::kNoSuchEntity) return user.status();
    if (!user.ok()) {
      storage::UserRecord nameless;
      nameless.user_id = std::string(user_id);
      user = std::move(nameless);
    }
    auto entry = std::make_shared<UserEntry>();
    entry->generation = generation;
    entry->user_id = user->user_id;
    entry->name = user->name;
    entry->arn = storage::UserArn(AccountId(store), *user);
    entry->tags = user->tags;
    if (old && old->policies->texts == user->policies) {
      entry->policies = old->policies;
    } else {
      auto parsed = std::make_shared<UserPolicies>();
      parsed->texts = user->policies;
      for (const auto& [name, text] : user->policies) {
        storage::Result<Policy> policy =
            Parse(text, {.kind = PolicyKind::kIdentity,
                         .bucket = {},
                         .max_bytes = storage::kMaxPolicyDocumentBytes});
        if (policy.ok()) parsed->policies.push_back(std::move(policy).value());
      }
      entry->policies = std::move(parsed);
    }
    std::unique_lock lock(mu_);
    if (users_.size() >= kMaxEntries) users_.clear();
    users_.insert_or_assign(entry->user_id, entry);
    return std::shared_ptr<const UserEntry>(std::move(entry));
  }

  // The data folder's account id, read once.
  std::string_view AccountId(storage::Store* store) {
    std::call_once(account_once_, [&] {
      storage::Result<std::string> account = store->GetAccountId();
      if (account.ok()) account_id_ = std::move(account).value();
    });
    return account_id_;
  }

 private:
  // Each of the two maps; when one is full it starts again empty (a bucket record with its
  // policy is a few KiB at most).
  static constexpr size_t kMaxEntries = 10000;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  std::shared_mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const BucketEntry>, Hash, std::equal_to<>>
      buckets_;
  std::unordered_map<std::string, std::shared_ptr<const UserEntry>, Hash, std::equal_to<>> users_;
  std::once_flag account_once_;
  std::string account_id_;
};

namespace {

// Who asks, as the condition keys name it.
struct PrincipalKeys {
  std::string_view type;     // aws:PrincipalType: "User" or "Anonymous"
  std::string_view name;     // aws:username
  std::string_view user_id;  // aws:userid
  std::string_view arn;      // aws:PrincipalArn
  std::string_view account;  // aws:PrincipalAccount
  const std::vector<std::pair<std::string, std::string>>* tags = nullptr;  // aws:PrincipalTag
};

// The actions a condition key applies to, as the Service Authorization Reference lists them
// for S3: a key that AWS does not fill for an action is absent there, whatever the request
// carries.
bool WritesObject(Action a) { return a == Action::kPutObject; }  // also copy, multipart
bool SetsAcl(Action a) {
  return a == Action::kPutObject || a == Action::kPutObjectAcl ||
         a == Action::kPutObjectVersionAcl || a == Action::kPutBucketAcl ||
         a == Action::kCreateBucket;
}
bool TagsObject(Action a) {
  return a == Action::kPutObject || a == Action::kPutObjectTagging ||
         a == Action::kPutObjectVersionTagging;
}
// Where an s3: key whose value is a request header is filled (the Service Authorization
// Reference's actions for it); elsewhere it is absent.
enum class HeaderScope { kAny, kObjectWrite, kCopy, kAclChange, kCreateBucket };

struct HeaderKeyRow {
  std::string_view key;     // normalized, as policy.h passes it
  std::string_view header;  // lowercase
  HeaderScope scope;
};

// The s3: keys read straight from a header (s3:x-amz-acl comes from RequestFacts::canned_acl).
constexpr HeaderKeyRow kHeaderKeys[] = {
    {"s3:x-amz-grant-read", "x-amz-grant-read", HeaderScope::kAclChange},
    {"s3:x-amz-grant-write", "x-amz-grant-write", HeaderScope::kAclChange},
    {"s3:x-amz-grant-read-acp", "x-amz-grant-read-acp", HeaderScope::kAclChange},
    {"s3:x-amz-grant-write-acp", "x-amz-grant-write-acp", HeaderScope::kAclChange},
    {"s3:x-amz-grant-full-control", "x-amz-grant-full-control", HeaderScope::kAclChange},
    {"s3:x-amz-server-side-encryption", "x-amz-server-side-encryption", HeaderScope::kObjectWrite},
    {"s3:x-amz-server-side-encryption-aws-kms-key-id",
     "x-amz-server-side-encryption-aws-kms-key-id", HeaderScope::kObjectWrite},
    {"s3:x-amz-server-side-encryption-customer-algorithm",
     "x-amz-server-side-encryption-customer-algorithm", HeaderScope::kObjectWrite},
    {"s3:x-amz-metadata-directive", "x-amz-metadata-directive", HeaderScope::kCopy},
    {"s3:x-amz-storage-class", "x-amz-storage-class", HeaderScope::kObjectWrite},
    {"s3:x-amz-website-redirect-location", "x-amz-website-redirect-location",
     HeaderScope::kObjectWrite},
    {"s3:x-amz-content-sha256", "x-amz-content-sha256", HeaderScope::kAny},
    {"s3:x-amz-object-ownership", "x-amz-object-ownership", HeaderScope::kCreateBucket},
    {"s3:if-match", "if-match", HeaderScope::kObjectWrite},
    {"s3:if-none-match", "if-none-match", HeaderScope::kObjectWrite},
    {"s3:object-lock-mode", "x-amz-object-lock-mode", HeaderScope::kObjectWrite},
    {"s3:object-lock-legal-hold", "x-amz-object-lock-legal-hold", HeaderScope::kObjectWrite},
    {"s3:object-lock-retain-until-date", "x-amz-object-lock-retain-until-date",
     HeaderScope::kObjectWrite},
};

bool InScope(HeaderScope scope, Action a, bool copy) {
  switch (scope) {
    case HeaderScope::kAny:
      return true;
    case HeaderScope::kObjectWrite:
      return WritesObject(a);
    case HeaderScope::kCopy:
      return WritesObject(a) && copy;
    case HeaderScope::kAclChange:
      return SetsAcl(a);
    case HeaderScope::kCreateBucket:
      return a == Action::kCreateBucket;
  }
  return false;
}

// The condition keys of one request, computed when a policy first asks (policy.h); what is
// read or parsed (the object's tags, x-amz-tagging, x-amz-copy-source) is kept for the rest of
// the evaluation. Spans stay valid for the object's life: fixed keys have a slot each, tag keys
// (any suffix) get a new one per call.
class RequestKeys final : public ConditionKeys {
 public:
  RequestKeys(const RequestFacts& facts, Action action, const Resource& resource,
              const storage::BucketRecord* bucket, storage::Store* store, std::string_view account,
              const PrincipalKeys& principal)
      : facts_(facts),
        action_(action),
        resource_(resource),
        bucket_(bucket),
        store_(store),
        account_(account),
        principal_(principal) {}

  std::span<const std::string_view> Values(std::string_view key) const override {
    if (key.starts_with("aws:")) return Global(key);
    if (key.starts_with("s3:")) return S3(key);
    return {};
  }

 private:
  enum Slot {
    kSourceIp,
    kSecureTransport,
    kEpochTime,
    kCurrentTime,
    kUserName,
    kUserId,
    kPrincipalType,
    kPrincipalArn,
    kPrincipalAccount,
    kReferer,
    kUserAgent,
    kResourceAccount,
    kPrefix,
    kDelimiter,
    kMaxKeys,
    kSignatureVersion,
    kAuthType,
    kSignatureAge,
    kTlsVersion,
    kCannedAcl,
    kHeader,  // kHeaderKeys[i] has slot kHeader + i
    kCopySource = kHeader + std::size(kHeaderKeys),
    kVersionId,
    kLocationConstraint,
    kRemainingDays,
    kSlots,
  };

  using Span = std::span<const std::string_view>;

  Span One(int slot, std::string_view value) const {
    slots_[slot] = value;
    return {&slots_[slot], 1};
  }
  Span Maybe(int slot, const std::optional<std::string_view>& value) const {
    return value ? One(slot, *value) : Span();
  }
  Span NonEmpty(int slot, std::string_view value) const {
    return value.empty() ? Span() : One(slot, value);
  }
  // A value that lives outside the slots (a tag's), with a slot of its own.
  Span Extra(std::string_view value) const {
    extra_.push_front(value);
    return {&extra_.front(), 1};
  }
  std::optional<std::string_view> Header(std::string_view name) const {
    if (facts_.headers == nullptr) return std::nullopt;
    return facts_.headers->Find(name);
  }
  static std::optional<std::string_view> TagValue(
      const std::vector<std::pair<std::string, std::string>>& tags, std::string_view key) {
    for (const auto& [k, v] : tags) {
      if (k == key) return std::string_view(v);
    }
    return std::nullopt;
  }

  Span Global(std::string_view key) const {
    if (key == "aws:sourceip") return NonEmpty(kSourceIp, facts_.source_ip);
    if (key == "aws:securetransport") {
      return One(kSecureTransport, facts_.secure_transport ? "true" : "false");
    }
    if (key == "aws:currenttime" || key == "aws:epochtime") {
      if (facts_.now == std::chrono::system_clock::time_point{}) return {};
      const int64_t secs =
          std::chrono::duration_cast<std::chrono::seconds>(facts_.now.time_since_epoch()).count();
      if (key == "aws:epochtime") {
        const int n = std::snprintf(epoch_, sizeof(epoch_), "%lld", static_cast<long long>(secs));
        return One(kEpochTime, std::string_view(epoch_, n));
      }
      const time_t t = static_cast<time_t>(secs);
      struct tm tm;
      gmtime_r(&t, &tm);
      const size_t n = std::strftime(time_, sizeof(time_), "%Y-%m-%dT%H:%M:%SZ", &tm);
      return One(kCurrentTime, std::string_view(time_, n));
    }
    if (key == "aws:username") return NonEmpty(kUserName, principal_.name);
    if (key == "aws:userid") return NonEmpty(kUserId, principal_.user_id);
    if (key == "aws:principaltype") return One(kPrincipalType, principal_.type);
    if (key == "aws:principalarn") return NonEmpty(kPrincipalArn, principal_.arn);
    if (key == "aws:principalaccount") return NonEmpty(kPrincipalAccount, principal_.account);
    if (key == "aws:referer") return Maybe(kReferer, facts_.referer);
    if (key == "aws:useragent") return Maybe(kUserAgent, facts_.user_agent);
    if (key == "aws:resourceaccount") return ResourceAccount();
    if (key.starts_with("aws:principaltag/")) {
      if (principal_.tags == nullptr) return {};
      std::optional<std::string_view> v = TagValue(*principal_.tags, key.substr(17));
      return v ? Extra(*v) : Span();
    }
    return {};
  }

  Span ResourceAccount() const {
    return resource_.bucket.empty() ? Span() : NonEmpty(kResourceAccount, account_);
  }

  Span S3(std::string_view key) const {
    const Action a = action_;
    if (key == "s3:prefix") return Maybe(kPrefix, facts_.prefix);
    if (key == "s3:delimiter") return Maybe(kDelimiter, facts_.delimiter);
    if (key == "s3:max-keys") return Maybe(kMaxKeys, facts_.max_keys);
    if (key == "s3:signatureversion") return NonEmpty(kSignatureVersion, facts_.signature_version);
    if (key == "s3:authtype") return NonEmpty(kAuthType, facts_.auth_type);
    if (key == "s3:signatureage") return SignatureAge();
    if (key == "s3:tlsversion") return NonEmpty(kTlsVersion, facts_.tls_version);
    if (key == "s3:resourceaccount") return ResourceAccount();
    if (key == "s3:versionid") return NonEmpty(kVersionId, resource_.version_id);
    if (key == "s3:locationconstraint") {
      return a == Action::kCreateBucket ? Maybe(kLocationConstraint, facts_.location_constraint)
                                        : Span();
    }
    if (key == "s3:x-amz-acl") return SetsAcl(a) ? Maybe(kCannedAcl, facts_.canned_acl) : Span();
    for (size_t i = 0; i < std::size(kHeaderKeys); ++i) {
      const HeaderKeyRow& row = kHeaderKeys[i];
      if (key != row.key) continue;
      if (!InScope(row.scope, a, facts_.copy_source)) return {};
      return Maybe(static_cast<int>(kHeader + i), Header(row.header));
    }
    if (key == "s3:object-lock-remaining-retention-days") return RemainingDays();
    if (key == "s3:x-amz-copy-source") return CopySource();
    if (key == "s3:requestobjecttagkeys") {
      if (!TagsObject(a) || RequestTags() == nullptr) return {};
      return request_tag_keys_;
    }
    if (key.starts_with("s3:requestobjecttag/")) {
      if (!TagsObject(a) || RequestTags() == nullptr) return {};
      std::optional<std::string_view> v = TagValue(*RequestTags(), key.substr(20));
      return v ? Extra(*v) : Span();
    }
    if (key.starts_with("s3:existingobjecttag/")) {
      if (!Info(a).existing_object || ExistingObject() == nullptr) return {};
      std::optional<std::string_view> v = TagValue(ExistingObject()->tags, key.substr(21));
      return v ? Extra(*v) : Span();
    }
    if (key.starts_with("s3:buckettag/")) {
      if (bucket_ == nullptr) return {};
      std::optional<std::string_view> v = TagValue(bucket_->tags, key.substr(13));
      return v ? Extra(*v) : Span();
    }
    return {};
  }

  // Milliseconds from the SigV4 signature's date to now; 0 for SigV2, as AWS documents.
  Span SignatureAge() const {
    if (facts_.signature_version.empty()) return {};
    int64_t age = 0;
    if (facts_.signature_version != "AWS") {
      std::optional<text::TimePoint> signed_at = text::ParseIso8601Basic(facts_.signature_date);
      if (!signed_at) return {};
      age = std::chrono::duration_cast<std::chrono::milliseconds>(facts_.now - *signed_at).count();
    }
    const int n = std::snprintf(age_, sizeof(age_), "%lld", static_cast<long long>(age));
    return One(kSignatureAge, std::string_view(age_, n));
  }

  // Whole days from now to x-amz-object-lock-retain-until-date (rounded down; negative once
  // past), as MinIO and AWS's examples count them.
  Span RemainingDays() const {
    if (!WritesObject(action_)) return {};
    std::optional<std::string_view> until = Header("x-amz-object-lock-retain-until-date");
    if (!until) return {};
    std::optional<text::TimePoint> t = text::ParseIso8601Extended(*until);
    if (!t) return {};
    const int64_t days = std::chrono::floor<std::chrono::days>(*t - facts_.now).count();
    const int n = std::snprintf(days_, sizeof(days_), "%lld", static_cast<long long>(days));
    return One(kRemainingDays, std::string_view(days_, n));
  }

  // x-amz-copy-source as AWS matches it: "bucket/key", percent-decoded, without a leading '/'
  // and without "?versionId=...".
  Span CopySource() const {
    if (!WritesObject(action_)) return {};
    std::optional<std::string_view> raw = Header("x-amz-copy-source");
    if (!raw) return {};
    std::string_view path = raw->substr(0, raw->find('?'));
    copy_source_ = text::PercentDecodeLenient(path, text::Plus::kLiteral);
    std::string_view decoded = copy_source_;
    if (decoded.starts_with('/')) decoded.remove_prefix(1);
    return One(kCopySource, decoded);
  }

  // The request's tags: the body's (facts.request_tags), else x-amz-tagging's; null when the
  // request names none or the header does not parse (the handler refuses it).
  const std::vector<std::pair<std::string, std::string>>* RequestTags() const {
    if (facts_.request_tags != nullptr) {
      if (request_tag_keys_.empty() && !facts_.request_tags->empty()) {
        for (const auto& [k, v] : *facts_.request_tags) request_tag_keys_.push_back(k);
      }
      return facts_.request_tags;
    }
    if (!tags_parsed_) {
      tags_parsed_ = true;
      std::optional<std::string_view> header = Header("x-amz-tagging");
      std::vector<text::NameValue> pairs;
      if (header && text::SplitUrlEncodedStrict(*header, text::Plus::kSpace, &pairs)) {
        for (text::NameValue& p : pairs) {
          header_tags_.emplace_back(std::move(p.name), std::move(p.value));
        }
        for (const auto& [k, v] : header_tags_) request_tag_keys_.push_back(k);
        has_header_tags_ = true;
      }
    }
    return has_header_tags_ ? &header_tags_ : nullptr;
  }

  // The object the request addresses (its version when named), read once; null when it does
  // not exist or cannot be read (the handler answers that).
  const storage::ObjectMeta* ExistingObject() const {
    if (resource_.object != nullptr) return resource_.object;
    if (!object_read_) {
      object_read_ = true;
      if (store_ != nullptr && !resource_.key.empty()) {
        storage::Result<storage::ObjectMeta> head =
            resource_.version_id.empty()
                ? store_->HeadObject(resource_.bucket, resource_.key)
                : store_->HeadObjectVersion(resource_.bucket, resource_.key, resource_.version_id,
                                            nullptr);
        if (head.ok()) object_ = std::move(head).value();
      }
    }
    return object_ ? &*object_ : nullptr;
  }

  const RequestFacts& facts_;
  const Action action_;
  const Resource& resource_;
  const storage::BucketRecord* bucket_;
  storage::Store* store_;
  std::string_view account_;
  PrincipalKeys principal_;
  mutable std::array<std::string_view, kSlots> slots_{};
  mutable std::forward_list<std::string_view> extra_;  // allocates only when used
  mutable char epoch_[24] = {};
  mutable char time_[32] = {};
  mutable char age_[24] = {};
  mutable char days_[24] = {};
  mutable std::string copy_source_;
  mutable bool tags_parsed_ = false;
  mutable bool has_header_tags_ = false;
  mutable std::vector<std::pair<std::string, std::string>> header_tags_;
  mutable std::vector<std::string_view> request_tag_keys_;
  mutable bool object_read_ = false;
  mutable std::optional<storage::ObjectMeta> object_;
};

// "arn:aws:s3:::bucket" or "arn:aws:s3:::bucket/key", in a buffer reused by the thread.
std::string_view ResourceArn(const Resource& resource) {
  thread_local std::string arn;
  arn.assign("arn:aws:s3:::");
  arn.append(resource.bucket);
  if (!resource.key.empty()) {
    arn.push_back('/');
    arn.append(resource.key);
  }
  return arn;
}

// A COSI bucket whose anonymousBucketAccessMode lets uncredentialed users read: its objects are
// anyone's to read, a rule of the bucket (see Authorizer), never a grant copied onto objects.
bool CosiAnyoneReads(const storage::BucketRecord& bucket) {
  return bucket.created_by_cosi && storage::CanRead(bucket.anonymous);
}

// What the ACLs say (step 4 of Authorizer's evaluation). `object` is read lazily.
struct AclQuestion {
  const storage::BucketRecord& bucket;
  const Resource& resource;
  AclCaller caller;
  bool owner = false;  // the caller owns the bucket
};

}  // namespace

storage::AclRecord BucketAclOf(const storage::BucketRecord& bucket) {
  if (bucket.acl.owner_id.empty() && bucket.acl.grants.empty()) {
    return storage::BucketAclFor(bucket.owner_id, bucket.anonymous);
  }
  return EffectiveAcl(bucket.object_ownership, bucket.acl, bucket.owner_id);
}

storage::AclRecord ObjectAclOf(const storage::BucketRecord& bucket,
                               const storage::ObjectMeta& object) {
  const std::string& owner = object.owner_id.empty() ? bucket.owner_id : object.owner_id;
  if (bucket.object_ownership == ObjectOwnership::kBucketOwnerEnforced) {
    return EffectiveAcl(bucket.object_ownership, object.acl, bucket.owner_id);
  }
  if (!object.acl.owner_id.empty() || !object.acl.grants.empty()) return object.acl;
  storage::AclRecord acl;
  acl.owner_id = owner;
  if (!owner.empty()) {
    acl.grants.push_back({GranteeType::kCanonicalUser, owner, AclPermission::kFullControl});
  }
  return acl;
}

Authorizer::Authorizer(storage::Store* store)
    : store_(store), cache_(std::make_unique<PolicyCache>()) {}
Authorizer::~Authorizer() = default;

namespace {

bool AclDecides(storage::Store* store, const AclQuestion& q, Action action) {
  const AclRequirement requirement = AclRequirementFor(action);
  const bool ignore_public = IgnorePublicGrants(q.bucket.public_access_block);
  switch (requirement.scope) {
    case AclScope::kNotGrantable:
      return q.owner;
    case AclScope::kInitiator: {
      // An anonymous caller never initiates an upload (anonymous writes are whole objects).
      if (q.owner) return true;
      if (!q.caller.authenticated) return false;
      storage::Result<storage::UploadRecord> upload =
          store->GetUpload(q.resource.bucket, q.resource.key, q.resource.upload_id);
      if (upload.ok() && !upload->initiator_id.empty()) {
        return upload->initiator_id == q.caller.canonical_id;
      }
      // Missing (the handler answers NoSuchUpload) or from before initiators were kept.
      return AclAllows(BucketAclOf(q.bucket), q.caller, AclPermission::kWrite, ignore_public);
    }
    case AclScope::kBucket:
    case AclScope::kBucketAny:
      return AclGrants(requirement, BucketAclOf(q.bucket), nullptr, q.caller, ignore_public);
    case AclScope::kObject:
      break;
  }
  storage::ObjectMeta read;
  const storage::ObjectMeta* object = q.resource.object;
  if (object == nullptr) {
    storage::Result<storage::ObjectMeta> head =
        q.resource.version_id.empty()
            ? store->HeadObject(q.resource.bucket, q.resource.key)
            : store->HeadObjectVersion(q.resource.bucket, q.resource.key, q.resource.version_id,
                                       nullptr);
    if (!head.ok()) {
      // Missing (or unreadable: the handler will meet the failure itself): the bucket owner,
      // and for GetObject(Version) whoever may list the bucket, hear what the handler answers
      // (NoSuchKey, NoSuchVersion); anyone else AccessDenied.
      return q.owner ||
             ((action == Action::kGetObject || action == Action::kGetObjectVersion) &&
              AclAllows(BucketAclOf(q.bucket), q.caller, AclPermission::kRead, ignore_public));
    }
    read = std::move(head).value();
    object = &read;
  }
  if (requirement.permission == AclPermission::kRead && CosiAnyoneReads(q.bucket) &&
      !ignore_public) {
    return true;
  }
  const storage::AclRecord object_acl = ObjectAclOf(q.bucket, *object);
  return AclGrants(requirement, BucketAclOf(q.bucket), &object_acl, q.caller, ignore_public);
}

}  // namespace

storage::Result<std::shared_ptr<const storage::BucketRecord>> Authorizer::CachedBucket(
    std::string_view bucket) const {
  storage::Result<std::shared_ptr<const PolicyCache::BucketEntry>> entry =
      cache_->Bucket(store_, {.bucket = bucket});
  if (!entry.ok()) return entry.status();
  const std::shared_ptr<const PolicyCache::BucketEntry>& held = *entry;
  return std::shared_ptr<const storage::BucketRecord>(held, &held->record);
}

Decision Authorizer::Authorize(const Identity& who, Action action, const Resource& resource,
                               const RequestFacts& facts) const {
  if (who.anonymous()) return AuthorizeAnonymous(action, resource, facts);
  const storage::AccessKeyRecord& key = *who.key;
  if (key.all_buckets && (action != Action::kListAllMyBuckets || resource.bucket.empty())) {
    return Of(true);
  }
  // A key without a user (only written before format 2; tests plant them) keeps the rules of
  // that time: root or its grants.
  if (key.user_id.empty())
    return key.all_buckets ? Of(true) : AuthorizeGrants(key, action, resource);
  if (!key.all_buckets && !key.grant_name.empty()) return AuthorizeGrants(key, action, resource);
  return AuthorizeUser(key, action, resource, facts);
}

namespace {

// A user's inline policies together: kDeny when one denies, else kAllow when one allows.
Match EvaluateAll(const std::vector<Policy>& policies, const RequestContext& request) {
  Match verdict = Match::kNone;
  for (const Policy& policy : policies) {
    const Match match = Evaluate(policy, request);
    if (match == Match::kDeny) return Match::kDeny;
    if (match == Match::kAllow) verdict = Match::kAllow;
  }
  return verdict;
}

}  // namespace

Decision Authorizer::AuthorizeCall(const Identity& who, std::string_view action,
                                   std::string_view resource, const RequestFacts& facts) const {
  if (who.anonymous()) return Of(false);
  const storage::AccessKeyRecord& key = *who.key;
  if (key.all_buckets) return Of(true);
  if (key.user_id.empty() || !key.grant_name.empty()) return Of(false);
  storage::Result<std::shared_ptr<const PolicyCache::UserEntry>> user =
      cache_->User(store_, key.user_id);
  if (!user.ok()) return {Verdict::kStorageFailure, user.status()};
  const PrincipalKeys principal{.type = "User",
                                .name = (*user)->name,
                                .user_id = (*user)->user_id,
                                .arn = (*user)->arn,
                                .account = AccountId(),
                                .tags = &(*user)->tags};
  // No S3 action: the s3: keys are absent, as AWS has them outside S3.
  const RequestKeys keys(facts, Action::kUnimplemented, Resource{}, nullptr, store_, AccountId(),
                         principal);
  const RequestContext request{
      .principals = {}, .action = action, .resource = resource, .keys = &keys};
  return Of(EvaluateAll((*user)->policies->policies, request) == Match::kAllow);
}

std::string_view Authorizer::AccountId() const { return cache_->AccountId(store_); }

Decision Authorizer::AuthorizeUser(const storage::AccessKeyRecord& key, Action action,
                                   const Resource& resource, const RequestFacts& facts) const {
  if (resource.bucket.empty()) return Of(true);
  const bool create = action == Action::kCreateBucket;
  storage::Result<std::shared_ptr<const PolicyCache::BucketEntry>> entry(
      storage::Status(storage::Code::kNoSuchBucket, ""));
  if (!create || resource.record != nullptr) entry = cache_->Bucket(store_, resource);
  if (!create && !entry.ok()) {
    if (entry.status().code() == storage::Code::kNoSuchBucket) {
      // Listing asks only about buckets that exist; any other action hears NoSuchBucket, as
      // AWS answers a signed request for a missing bucket.
      return action == Action::kListAllMyBuckets ? Of(false) : Decision{Verdict::kNoSuchBucket, {}};
    }
    return {Verdict::kStorageFailure, entry.status()};
  }
  const storage::BucketRecord* bucket = entry.ok() ? &(*entry)->record : nullptr;
  const bool owner = bucket != nullptr && (bucket->owner_id == key.user_id ||
                                           (key.all_buckets && bucket->owner_id.empty()));
  if (action == Action::kListAllMyBuckets) return Of(owner);  // root reaches here too

  // A key's user always exists (a user with keys cannot be deleted).
  storage::Result<std::shared_ptr<const PolicyCache::UserEntry>> user =
      cache_->User(store_, key.user_id);
  if (!user.ok()) return {Verdict::kStorageFailure, user.status()};
  const std::vector<Policy>& user_policies = (*user)->policies->policies;
  const PolicyCache::BucketPolicy* bucket_policy =
      entry.ok() && (*entry)->policy && (*entry)->policy->policy ? (*entry)->policy.get()
                                                                  : nullptr;

  bool allowed = false;
  if (!user_policies.empty() || bucket_policy != nullptr) {
    const PrincipalKeys principal{.type = "User",
                                  .name = (*user)->name,
                                  .user_id = (*user)->user_id,
                                  .arn = (*user)->arn,
                                  .account = cache_->AccountId(store_),
                                  .tags = &(*user)->tags};
    const RequestKeys keys(facts, action, resource, bucket, store_, cache_->AccountId(store_),
                           principal);
    const std::string_view principals[] = {(*user)->arn, (*user)->user_id,
                                           cache_->AccountId(store_)};
    const RequestContext request{.principals = principals,
                                 .action = ActionName(action),
                                 .resource = ResourceArn(resource),
                                 .keys = &keys};
    switch (EvaluateAll(user_policies, request)) {
      case Match::kDeny:
        return Of(false);
      case Match::kAllow:
        allowed = true;
        break;
      case Match::kNone:
        break;
    }
    if (bucket_policy != nullptr) {
      switch (Evaluate(*bucket_policy->policy, request)) {
        case Match::kDeny:
          return Of(false);
        case Match::kAllow:
          if (owner ||
              !RestrictPublicBucketAccess(bucket->public_access_block, bucket_policy->is_public)) {
            allowed = true;
          }
          break;
        case Match::kNone:
          break;
      }
    }
  }
  if (allowed || create) return Of(true);
  return Of(AclDecides(store_, {*bucket, resource, AclCaller::User(key.user_id), owner}, action));
}

Decision Authorizer::AuthorizeAnonymous(Action action, const Resource& resource,
                                        const RequestFacts& facts) const {
  if (resource.bucket.empty() || Info(action).anonymous_never) {
    // Requests cubby does not implement, on a missing bucket, still hear NoSuchBucket.
    if (action != Action::kUnimplemented || resource.bucket.empty()) return Of(false);
  }
  // AWS answers NoSuchBucket to anonymous requests on a missing bucket.
  storage::Result<std::shared_ptr<const PolicyCache::BucketEntry>> entry =
      cache_->Bucket(store_, resource);
  if (!entry.ok()) {
    if (entry.status().code() == storage::Code::kNoSuchBucket) {
      return {Verdict::kNoSuchBucket, {}};
    }
    return {Verdict::kStorageFailure, entry.status()};
  }
  const storage::BucketRecord& bucket = (*entry)->record;
  if (action == Action::kUnimplemented) return Of(false);
  // An anonymous writer writes whole objects (cubby's anonymous modes never allowed more).
  if (action == Action::kPutObject && (facts.copy_source || facts.multipart)) return Of(false);
  if (const PolicyCache::BucketPolicy* policy = (*entry)->policy.get();
      policy != nullptr && policy->policy) {
    const RequestKeys keys(facts, action, resource, &bucket, store_, cache_->AccountId(store_),
                           {.type = "Anonymous"});
    const RequestContext request{.principals = {},  // anonymous: only "*" matches
                                 .action = ActionName(action),
                                 .resource = ResourceArn(resource),
                                 .keys = &keys};
    switch (Evaluate(*policy->policy, request)) {
      case Match::kDeny:
        return Of(false);
      case Match::kAllow:
        if (!RestrictPublicBucketAccess(bucket.public_access_block, policy->is_public)) {
          return Of(true);
        }
        break;
      case Match::kNone:
        break;
    }
  }
  // Through ACLs an anonymous caller deletes only where it may also read: COSI's WriteOnly mode
  // (AllUsers WRITE alone) is a drop box, PutObject only, as it always was.
  if ((action == Action::kDeleteObject || action == Action::kDeleteObjectVersion) &&
      !AclAllows(BucketAclOf(bucket), AclCaller::Anonymous(), AclPermission::kRead,
                 IgnorePublicGrants(bucket.public_access_block))) {
    return Of(false);
  }
  return Of(AclDecides(store_, {bucket, resource, AclCaller::Anonymous(), false}, action));
}

}  // namespace cubby::iam
