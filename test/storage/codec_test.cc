#include "storage/codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "storage/bucket_config_codec.h"

namespace cubby::storage::codec {
namespace {

using namespace std::string_literals;

void ExpectSame(const BucketRecord& a, const BucketRecord& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.created_ms, b.created_ms);
  EXPECT_EQ(a.anonymous, b.anonymous);
  EXPECT_EQ(a.force_delete, b.force_delete);
  EXPECT_EQ(a.created_by_cosi, b.created_by_cosi);
  EXPECT_EQ(a.cosi_parameters, b.cosi_parameters);
  EXPECT_EQ(a.owner_id, b.owner_id);
  EXPECT_EQ(a.acl, b.acl);
  EXPECT_EQ(a.object_ownership, b.object_ownership);
  EXPECT_EQ(a.public_access_block, b.public_access_block);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.versioning, b.versioning);
  EXPECT_EQ(a.object_lock, b.object_lock);
  EXPECT_EQ(a.lifecycle, b.lifecycle);
  EXPECT_EQ(a.tags, b.tags);
  EXPECT_EQ(a.cors, b.cors);
  EXPECT_EQ(a.encryption, b.encryption);
  EXPECT_EQ(a.quota, b.quota);
}

void ExpectSame(const ObjectMeta& a, const ObjectMeta& b) {
  EXPECT_EQ(a.size, b.size);
  EXPECT_EQ(a.etag, b.etag);
  EXPECT_EQ(a.last_modified_ms, b.last_modified_ms);
  EXPECT_EQ(a.content_type, b.content_type);
  EXPECT_EQ(a.content_encoding, b.content_encoding);
  EXPECT_EQ(a.content_disposition, b.content_disposition);
  EXPECT_EQ(a.content_language, b.content_language);
  EXPECT_EQ(a.cache_control, b.cache_control);
  EXPECT_EQ(a.expires, b.expires);
  EXPECT_EQ(a.user_meta, b.user_meta);
  EXPECT_EQ(a.checksums, b.checksums);
  EXPECT_EQ(a.part_sizes, b.part_sizes);
  EXPECT_EQ(a.data_id, b.data_id);
  EXPECT_EQ(a.chunk_size, b.chunk_size);
  EXPECT_EQ(a.inline_data, b.inline_data);
  EXPECT_EQ(a.segments, b.segments);
  EXPECT_EQ(a.owner_id, b.owner_id);
  EXPECT_EQ(a.acl, b.acl);
  EXPECT_EQ(a.tags, b.tags);
  EXPECT_EQ(a.part_checksums, b.part_checksums);
  EXPECT_EQ(a.encryption, b.encryption);
  EXPECT_EQ(a.storage_class, b.storage_class);
}

void ExpectSame(const AccessKeyRecord& a, const AccessKeyRecord& b) {
  EXPECT_EQ(a.access_key_id, b.access_key_id);
  EXPECT_TRUE(a.secret == b.secret);
  EXPECT_EQ(a.all_buckets, b.all_buckets);
  EXPECT_EQ(a.grants, b.grants);
  EXPECT_EQ(a.grant_name, b.grant_name);
  EXPECT_EQ(a.created_ms, b.created_ms);
  EXPECT_EQ(a.user_id, b.user_id);
  EXPECT_EQ(a.status, b.status);
}

AclRecord FullAcl() {
  AclRecord acl;
  acl.owner_id = std::string(64, 'a');
  acl.grants = {{GranteeType::kCanonicalUser, std::string(64, 'a'), AclPermission::kFullControl},
                {GranteeType::kGroup, "http://acs.amazonaws.com/groups/global/AllUsers",
                 AclPermission::kRead},
                {GranteeType::kCanonicalUser, "b", AclPermission::kWrite},
                {GranteeType::kCanonicalUser, "", AclPermission::kReadAcp},
                {GranteeType::kGroup, "g", AclPermission::kWriteAcp}};
  return acl;
}

std::vector<BucketRecord> Buckets() {
  BucketRecord empty;
  BucketRecord full;
  full.name = "my-bucket";
  full.created_ms = 1700000000123;
  full.anonymous = AccessMode::kReadWrite;
  full.force_delete = true;
  full.created_by_cosi = true;
  full.cosi_parameters = {{"anonymous", "ro"}, {"bin\0key"s, "\xff\x00v"s}, {"", ""}};
  BucketRecord negative;
  negative.name = "n";
  negative.created_ms = -5;
  negative.anonymous = AccessMode::kWriteOnly;
  BucketRecord owned = full;  // every access-control field (format 2)
  owned.owner_id = std::string(64, 'a');
  owned.acl = FullAcl();
  owned.object_ownership = ObjectOwnership::kBucketOwnerEnforced;
  owned.public_access_block = {true, true, false, true, true};
  owned.policy = R"({"Version":"2012-10-17","Statement":[]})";
  BucketRecord preferred;
  preferred.object_ownership = ObjectOwnership::kBucketOwnerPreferred;
  preferred.public_access_block = {false, false, true, false, false};
  BucketRecord with_lifecycle = owned;  // version 4: lifecycle rules
  with_lifecycle.versioning = VersioningState::kEnabled;
  LifecycleRule rule;
  rule.id = "expire";
  rule.filter.prefix = "logs/";
  rule.filter.size_greater_than = 10;
  rule.expiration_days = 3;
  rule.noncurrent_days = 1;
  rule.newer_noncurrent_versions = 2;
  LifecycleRule disabled;
  disabled.id = "off";
  disabled.enabled = false;
  disabled.abort_incomplete_days = 7;
  with_lifecycle.lifecycle.rules = {rule, disabled};
  BucketRecord lifecycle_only;  // lifecycle alone also moves the record to version 4
  lifecycle_only.name = "l";
  lifecycle_only.lifecycle.rules = {disabled};
  BucketRecord with_cors = with_lifecycle;  // version 5: CORS rules
  CorsRule cors;
  cors.id = "site";
  cors.allowed_methods = {"GET", "PUT"};
  cors.allowed_origins = {"https://*.example.com"};
  cors.allowed_headers = {"*"};
  cors.expose_headers = {"ETag"};
  cors.max_age_seconds = 600;
  with_cors.cors.rules = {cors};
  BucketRecord cors_only;  // CORS alone moves the record to version 5, lifecycle empty
  cors_only.name = "c";
  cors_only.cors.rules = {cors, cors};
  BucketRecord with_encryption = with_cors;  // version 7: a default-encryption rule
  with_encryption.encryption.rules = {{SseAlgorithm::kAwsKms, "arn:aws:kms:k", true}};
  BucketRecord encryption_only;  // encryption alone moves the record to version 7
  encryption_only.name = "e";
  encryption_only.encryption.rules = {{}};
  BucketRecord with_quota = with_encryption;  // version 8: a quota (issue 17)
  with_quota.quota = {.bytes = UINT64_MAX, .objects = 0};
  BucketRecord quota_only;  // a quota alone moves the record to version 8
  quota_only.name = "q";
  quota_only.quota.bytes = 1 << 20;
  return {empty,           full,           negative,  owned,     preferred,
          with_lifecycle,  lifecycle_only, with_cors, cors_only, with_encryption,
          encryption_only, with_quota,     quota_only};
}

std::vector<ObjectMeta> Metas() {
  ObjectMeta empty;
  ObjectMeta inline_binary;
  inline_binary.inline_data = "\0\1\2\xff bytes"s;
  inline_binary.size = inline_binary.inline_data.size();
  inline_binary.etag = "d41d8cd98f00b204e9800998ecf8427e";
  inline_binary.last_modified_ms = 1;
  inline_binary.content_type = "text/plain; charset=utf-8";
  inline_binary.content_encoding = "gzip";
  inline_binary.content_disposition = "attachment; filename=\"a b\"";
  inline_binary.content_language = "de";
  inline_binary.cache_control = "no-cache";
  inline_binary.expires = "Thu, 01 Dec 1994 16:00:00 GMT";
  inline_binary.user_meta = {{"b", "2"}, {"a", "\xc3\xa9"}, {"a", "dup"}};  // order kept
  inline_binary.checksums = {{"CRC32", "AAAAAA=="}, {"SHA256", "x"}};
  ObjectMeta chunked;
  chunked.size = 1ull << 40;
  chunked.etag = "abc-3";
  chunked.last_modified_ms = INT64_MAX;
  chunked.part_sizes = {5ull << 20, 5ull << 20, 0, UINT64_MAX};
  chunked.data_id = UINT64_MAX;
  chunked.chunk_size = UINT32_MAX;
  ObjectMeta multipart;  // a chunked part, an empty one, a huge chunked one, a file
  multipart.etag = "abc-4";
  multipart.segments = {
      {7, 300, 256}, {0, 0, 0}, {UINT64_MAX, 1ull << 40, UINT32_MAX}, {8, 5000, 0}};
  multipart.size = 300 + (1ull << 40) + 5000;
  multipart.part_sizes = {300, 0, 1ull << 40, 5000};
  ObjectMeta in_file;  // chunk size 0 with a data id: the bytes are one data file
  in_file.size = 3ull << 30;
  in_file.etag = "f";
  in_file.data_id = 1ull << 40;
  in_file.chunk_size = 0;
  ObjectMeta owned_inline = inline_binary;  // version 3: owner and ACL, no segments
  owned_inline.owner_id = std::string(64, 'b');
  ObjectMeta owned_multipart = multipart;  // version 3 with segments
  owned_multipart.acl = FullAcl();
  ObjectMeta acl_only;
  acl_only.acl.grants = {{GranteeType::kGroup, "g", AclPermission::kRead}};
  return {empty,   inline_binary, chunked,         multipart,
          in_file, owned_inline,  owned_multipart, acl_only};
}

std::vector<AccessKeyRecord> Keys() {
  AccessKeyRecord empty;
  AccessKeyRecord root;
  root.access_key_id = "CBROOTROOTROOTROOT00";
  root.secret = SecretKey("s3cr3t/+abc");
  root.all_buckets = true;
  root.created_ms = 42;
  AccessKeyRecord granted;
  granted.access_key_id = "CB1234567890ABCDEFGH";
  granted.secret = SecretKey("\0\xff"s);
  granted.grants = {{"b1", AccessMode::kReadOnly}, {"b2", AccessMode::kNone}, {"b3", AccessMode::kReadWrite}};
  granted.grant_name = "ba-1234";
  granted.created_ms = INT64_MIN;
  AccessKeyRecord user_key = granted;  // format 2: a user's, Inactive
  user_key.user_id = std::string(64, 'c');
  user_key.status = KeyStatus::kInactive;
  return {empty, root, granted, user_key};
}

TEST(Codec, BucketRoundTrip) {
  for (const BucketRecord& r : Buckets()) {
    Result<BucketRecord> back = DecodeBucket(EncodeBucket(r));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSame(r, *back);
  }
}

TEST(Codec, ObjectMetaRoundTrip) {
  for (const ObjectMeta& m : Metas()) {
    std::string enc = EncodeObjectMeta(m);
    Result<ObjectMeta> back = DecodeObjectMeta(enc);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSame(m, *back);
    Result<ObjectSummary> summary = DecodeObjectSummary(enc);
    ASSERT_TRUE(summary.ok());
    EXPECT_EQ(summary->size, m.size);
    EXPECT_EQ(summary->etag, m.etag);
    EXPECT_EQ(summary->last_modified_ms, m.last_modified_ms);
  }
}

TEST(Codec, AccessKeyRoundTrip) {
  for (const AccessKeyRecord& r : Keys()) {
    Result<AccessKeyRecord> back = DecodeAccessKey(EncodeAccessKey(r));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSame(r, *back);
  }
}

std::vector<UserRecord> Users() {
  UserRecord empty;
  UserRecord full;
  full.user_id = std::string(64, 'd');
  full.name = "Alice";
  full.path = "/team/";
  full.display_name = "Alice A.";
  full.email = "alice@example.com";
  full.created_ms = -7;
  full.tags = {{"b", "1"}, {"a", ""}, {"\xc3\xa4", "\0"s}};  // order kept
  full.policies = {{"p1", R"({"Version":"2012-10-17"})"}, {"p2", ""}};
  return {empty, full};
}

TEST(Codec, UserRoundTrip) {
  for (const UserRecord& r : Users()) {
    Result<UserRecord> back = DecodeUser(EncodeUser(r));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->user_id, r.user_id);
    EXPECT_EQ(back->name, r.name);
    EXPECT_EQ(back->path, r.path);
    EXPECT_EQ(back->display_name, r.display_name);
    EXPECT_EQ(back->email, r.email);
    EXPECT_EQ(back->created_ms, r.created_ms);
    EXPECT_EQ(back->tags, r.tags);
    EXPECT_EQ(back->policies, r.policies);
  }
}

// Records as format 1 wrote them (before users), spelled out byte by byte: they decode with
// the new fields at their defaults, and records without an owner keep the old versions.
TEST(Codec, Format1RecordsStillDecode) {
  const std::string bucket_v1 = "\x01\x01x\x04\x01\x01\x00\x01\x01k\x01v"s;
  Result<BucketRecord> b = DecodeBucket(bucket_v1);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->name, "x");
  EXPECT_EQ(b->created_ms, 2);
  EXPECT_EQ(b->anonymous, AccessMode::kReadOnly);
  EXPECT_TRUE(b->force_delete);
  EXPECT_FALSE(b->created_by_cosi);
  EXPECT_EQ(b->cosi_parameters, (std::map<std::string, std::string>{{"k", "v"}}));
  EXPECT_TRUE(b->owner_id.empty());
  EXPECT_EQ(b->acl, AclRecord{});
  EXPECT_EQ(b->object_ownership, ObjectOwnership::kObjectWriter);
  EXPECT_FALSE(b->public_access_block.configured);
  EXPECT_TRUE(b->policy.empty());
  EXPECT_EQ(DecodeBucket(bucket_v1 + "x").status().code(), Code::kCorruption);

  const std::string key_v1 = "\x01\x02K1\x02s1\x00\x01\x01"s + "b\x03\x04"s + "ba-1\x06"s;
  Result<AccessKeyRecord> k = DecodeAccessKey(key_v1);
  ASSERT_TRUE(k.ok()) << k.status().ToString();
  EXPECT_EQ(k->access_key_id, "K1");
  EXPECT_EQ(k->secret.reveal(), "s1");
  EXPECT_EQ(k->grants, (std::map<std::string, AccessMode>{{"b", AccessMode::kReadWrite}}));
  EXPECT_EQ(k->grant_name, "ba-1");
  EXPECT_EQ(k->created_ms, 3);
  EXPECT_TRUE(k->user_id.empty());
  EXPECT_EQ(k->status, KeyStatus::kActive);

  // Objects without owner or ACL are written as before: version 1, or 2 with segments.
  for (const ObjectMeta& m : Metas()) {
    const bool owned = !m.owner_id.empty() || m.acl != AclRecord{};
    const char version = EncodeObjectMeta(m)[0];
    EXPECT_EQ(version, owned ? 3 : m.segments.empty() ? 1 : 2);
  }
  EXPECT_EQ(EncodeBucket(BucketRecord{})[0], 2);
  EXPECT_EQ(EncodeAccessKey(AccessKeyRecord{})[0], 2);
}

TEST(Codec, CorruptAccessControlFields) {
  BucketRecord b;
  b.acl.grants = {{GranteeType::kGroup, "g", AclPermission::kRead}};
  const std::string enc = EncodeBucket(b);
  // Layout of the tail: ..., owner_id "", acl owner "", count 1, type, "g", permission,
  // ownership, public access block flags, policy "".
  const size_t n = enc.size();
  struct Case {
    const char* what;
    size_t at;
    char value;
  } cases[] = {
      {"grantee type 0", n - 7, 0}, {"grantee type 3", n - 7, 3}, {"permission 0", n - 4, 0},
      {"permission 6", n - 4, 6},   {"ownership 3", n - 3, 3},    {"flags 32", n - 2, 32},
  };
  ASSERT_TRUE(DecodeBucket(enc).ok());
  for (const Case& c : cases) {
    std::string bad = enc;
    bad[c.at] = c.value;
    EXPECT_EQ(DecodeBucket(bad).status().code(), Code::kCorruption) << c.what;
  }
  AccessKeyRecord k;
  std::string key = EncodeAccessKey(k);
  key.back() = 2;  // status
  EXPECT_EQ(DecodeAccessKey(key).status().code(), Code::kCorruption);
}

// Every strict prefix of a valid encoding, a wrong version and a trailing byte are corrupt.
template <typename Decode>
void ExpectCorruptVariants(const std::string& valid, Decode decode) {
  ASSERT_TRUE(decode(valid).ok());
  for (size_t n = 0; n < valid.size(); ++n) {
    auto r = decode(std::string_view(valid).substr(0, n));
    ASSERT_FALSE(r.ok()) << "prefix of length " << n << " decoded";
    EXPECT_EQ(r.status().code(), Code::kCorruption);
  }
  std::string wrong_version = valid;
  wrong_version[0] = 0x7f;
  EXPECT_EQ(decode(wrong_version).status().code(), Code::kCorruption);
  EXPECT_EQ(decode(valid + "x").status().code(), Code::kCorruption);
}

TEST(Codec, CorruptInputIsCorruption) {
  for (const auto& r : Buckets()) {
    ExpectCorruptVariants(EncodeBucket(r), [](std::string_view in) { return DecodeBucket(in); });
  }
  for (const auto& m : Metas()) {
    ExpectCorruptVariants(EncodeObjectMeta(m), [](std::string_view in) { return DecodeObjectMeta(in); });
  }
  for (const auto& k : Keys()) {
    ExpectCorruptVariants(EncodeAccessKey(k), [](std::string_view in) { return DecodeAccessKey(in); });
  }
  for (const auto& u : Users()) {
    ExpectCorruptVariants(EncodeUser(u), [](std::string_view in) { return DecodeUser(in); });
  }
}

TEST(Codec, CorruptFieldValues) {
  BucketRecord b;
  b.name = "x";
  std::string enc = EncodeBucket(b);
  // Layout: version, name(len 1, 'x'), created_ms(0), anonymous, force_delete, cosi, map count.
  std::string bad_mode = enc;
  bad_mode[4] = 4;
  EXPECT_EQ(DecodeBucket(bad_mode).status().code(), Code::kCorruption);
  std::string bad_bool = enc;
  bad_bool[5] = 2;
  EXPECT_EQ(DecodeBucket(bad_bool).status().code(), Code::kCorruption);
  // A format-1 record (version, name "x", created 0, mode, force, cosi) with 127 map entries
  // in 0 bytes.
  std::string huge_count = "\x01\x01x\x00\x00\x00\x00\x7f"s;
  EXPECT_EQ(DecodeBucket(huge_count).status().code(), Code::kCorruption);
  std::string overlong_varint = "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"s;
  EXPECT_EQ(DecodeBucket(overlong_varint).status().code(), Code::kCorruption);

  // Meta invariants the reader relies on.
  struct Case {
    const char* name;
    uint64_t size;
    std::string inline_data;
    uint64_t data_id;
    uint32_t chunk_size;
    bool valid;
  } cases[] = {
      {"inline", 3, "abc", 0, 0, true},
      {"empty", 0, "", 0, 0, true},
      {"chunks", 10, "", 7, 256, true},
      {"file", 10, "", 7, 0, true},
      {"empty file", 0, "", 7, 0, true},
      {"inline bytes shorter than the size", 4, "abc", 0, 0, false},
      {"no data id, no inline bytes", 10, "", 0, 0, false},
      {"inline object with a chunk size", 3, "abc", 0, 256, false},
      {"empty object with a chunk size", 0, "", 0, 256, false},
      {"inline bytes and a data id (file)", 3, "abc", 7, 0, false},
      {"inline bytes and a data id (chunks)", 3, "abc", 7, 256, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ObjectMeta m;
    m.size = c.size;
    m.inline_data = c.inline_data;
    m.data_id = c.data_id;
    m.chunk_size = c.chunk_size;
    Result<ObjectMeta> back = DecodeObjectMeta(EncodeObjectMeta(m));
    if (c.valid) {
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      ExpectSame(m, *back);
    } else {
      EXPECT_EQ(back.status().code(), Code::kCorruption);
    }
  }
}

TEST(Codec, MultipartRecordsRoundTripAndRejectCorruption) {
  UploadRecord u;
  u.bucket = "b";
  u.key = "dir/\0key"s;
  u.upload_id = std::string(kUploadIdLength, 'a');
  u.initiated_ms = -3;
  u.meta = Metas()[1];
  u.checksum_algorithm = "CRC32C";
  u.checksum_type = "FULL_OBJECT";
  Result<UploadRecord> ub = DecodeUpload(EncodeUpload(u));
  ASSERT_TRUE(ub.ok()) << ub.status().ToString();
  EXPECT_EQ(ub->bucket, u.bucket);
  EXPECT_EQ(ub->key, u.key);
  EXPECT_EQ(ub->upload_id, u.upload_id);
  EXPECT_EQ(ub->initiated_ms, u.initiated_ms);
  ExpectSame(ub->meta, u.meta);
  EXPECT_EQ(ub->checksum_algorithm, u.checksum_algorithm);
  EXPECT_EQ(ub->checksum_type, u.checksum_type);
  EXPECT_EQ(ub->initiator_id, "");
  ExpectCorruptVariants(EncodeUpload(u), [](std::string_view in) { return DecodeUpload(in); });
  u.initiator_id = std::string(64, 'c');
  ub = DecodeUpload(EncodeUpload(u));
  ASSERT_TRUE(ub.ok()) << ub.status().ToString();
  EXPECT_EQ(ub->initiator_id, u.initiator_id);
  ExpectCorruptVariants(EncodeUpload(u), [](std::string_view in) { return DecodeUpload(in); });
  // A version-1 record (before the initiator was kept) still decodes, without one: the same
  // bytes without the last field and with the first byte 1.
  std::string v1 = EncodeUpload(u);
  v1.resize(v1.size() - 1 - u.initiator_id.size());
  v1[0] = 1;
  ub = DecodeUpload(v1);
  ASSERT_TRUE(ub.ok()) << ub.status().ToString();
  EXPECT_EQ(ub->initiator_id, "");
  EXPECT_EQ(ub->checksum_type, u.checksum_type);

  PartRecord p;
  p.part_number = 10000;
  p.size = 1ull << 33;
  p.etag = "e";
  p.last_modified_ms = 5;
  p.checksums = {{"CRC32", "x"}};
  p.data = {9, 1ull << 33, 1 << 20};
  Result<PartRecord> pb = DecodePart(EncodePart(p));
  ASSERT_TRUE(pb.ok()) << pb.status().ToString();
  EXPECT_EQ(pb->part_number, p.part_number);
  EXPECT_EQ(pb->size, p.size);
  EXPECT_EQ(pb->etag, p.etag);
  EXPECT_EQ(pb->last_modified_ms, p.last_modified_ms);
  EXPECT_EQ(pb->checksums, p.checksums);
  EXPECT_EQ(pb->data, p.data);
  ExpectCorruptVariants(EncodePart(p), [](std::string_view in) { return DecodePart(in); });
  PartRecord bad = p;
  bad.data.size = 1;  // disagrees with the part's size
  EXPECT_EQ(DecodePart(EncodePart(bad)).status().code(), Code::kCorruption);

  CompletedRecord c{"b", "k", "e-2", 7, 8};
  Result<CompletedRecord> cb = DecodeCompleted(EncodeCompleted(c));
  ASSERT_TRUE(cb.ok());
  EXPECT_EQ(cb->bucket, "b");
  EXPECT_EQ(cb->key, "k");
  EXPECT_EQ(cb->etag, "e-2");
  EXPECT_EQ(cb->last_modified_ms, 7);
  EXPECT_EQ(cb->completed_ms, 8);
  ExpectCorruptVariants(EncodeCompleted(c), [](std::string_view in) { return DecodeCompleted(in); });

  int64_t objects, bytes;
  ASSERT_TRUE(DecodeStatsDelta(EncodeStatsDelta(-1, INT64_MAX), &objects, &bytes));
  EXPECT_EQ(objects, -1);
  EXPECT_EQ(bytes, INT64_MAX);
  EXPECT_FALSE(DecodeStatsDelta("short", &objects, &bytes));
}

// Segments must add up to the size; a segment with bytes needs a data id (chunk size 0 means a
// file); an empty one has neither id nor chunk size; a multipart object has no bytes of its own.
TEST(Codec, CorruptSegments) {
  const ObjectMeta m = Metas()[3];
  ASSERT_TRUE(DecodeObjectMeta(EncodeObjectMeta(m)).ok());
  struct Case {
    const char* name;
    std::function<void(ObjectMeta*)> change;
    bool valid;
  } cases[] = {
      {"as is", [](ObjectMeta*) {}, true},
      {"chunked part becomes a file", [](ObjectMeta* x) { x->segments[0].chunk_size = 0; }, true},
      {"file part becomes chunked", [](ObjectMeta* x) { x->segments[3].chunk_size = 512; }, true},
      {"empty file part", [](ObjectMeta* x) {
         x->size -= x->segments[3].size;
         x->segments[3].size = 0;
       }, true},
      {"sizes do not add up", [](ObjectMeta* x) { x->size += 1; }, false},
      {"chunked part without id", [](ObjectMeta* x) { x->segments[0].data_id = 0; }, false},
      {"file part without id", [](ObjectMeta* x) { x->segments[3].data_id = 0; }, false},
      {"empty part with a chunk size", [](ObjectMeta* x) { x->segments[1].chunk_size = 256; },
       false},
      {"object data id too", [](ObjectMeta* x) { x->data_id = 3; }, false},
      {"object data id too, chunk size too", [](ObjectMeta* x) {
         x->data_id = 3;
         x->chunk_size = 256;
       }, false},
      {"inline bytes too", [](ObjectMeta* x) {
         x->inline_data = "ab";
         x->size += 2;
       }, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ObjectMeta changed = m;
    c.change(&changed);
    Result<ObjectMeta> back = DecodeObjectMeta(EncodeObjectMeta(changed));
    if (c.valid) {
      ASSERT_TRUE(back.ok()) << back.status().ToString();
      ExpectSame(changed, *back);
    } else {
      EXPECT_EQ(back.status().code(), Code::kCorruption);
    }
  }

  // A part's data follows the same rules.
  PartRecord p;
  p.part_number = 1;
  p.size = 5000;
  for (DataSegment data : {DataSegment{9, 5000, 0}, DataSegment{9, 5000, 256}}) {
    p.data = data;
    Result<PartRecord> back = DecodePart(EncodePart(p));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->data, data);
  }
  p.data = {0, 5000, 0};
  EXPECT_EQ(DecodePart(EncodePart(p)).status().code(), Code::kCorruption);
  p.size = 0;
  p.data = {0, 0, 256};
  EXPECT_EQ(DecodePart(EncodePart(p)).status().code(), Code::kCorruption);
  p.data = {0, 0, 0};
  EXPECT_TRUE(DecodePart(EncodePart(p)).ok());
}

TEST(Codec, UploadKeysSplitAndSortByKeyThenId) {
  const std::string id1 = "000000000001" + std::string(32, 'f');
  const std::string id2 = "000000000002" + std::string(32, '0');
  std::vector<std::string> encoded = {UploadKey("b", "k/2", id1), UploadKey("b", "k", id2),
                                      UploadKey("b", "k", id1), UploadKey("b", "k/", id1)};
  std::sort(encoded.begin(), encoded.end());
  EXPECT_EQ(encoded, (std::vector<std::string>{UploadKey("b", "k", id1), UploadKey("b", "k", id2),
                                               UploadKey("b", "k/", id1),
                                               UploadKey("b", "k/2", id1)}));
  std::string key, id;
  ASSERT_TRUE(DecodeUploadKeyName("b", UploadKey("b", "a/b", id2), &key, &id));
  EXPECT_EQ(key, "a/b");
  EXPECT_EQ(id, id2);
  EXPECT_FALSE(DecodeUploadKeyName("b", "ub\0short", &key, &id));
  for (const std::string& k : encoded) {
    EXPECT_GE(k, UploadPrefix("b"));
    EXPECT_LT(k, UploadPrefixEnd("b"));
  }
  EXPECT_LT(PartKey(id1, 10000), PartPrefixEnd(id1));
  EXPECT_LT(PartKey(id1, UINT32_MAX), PartPrefixEnd(id1));
  EXPECT_LT(PartPrefixEnd(id1), PartPrefix(id2));
}

TEST(Codec, ObjectKeysSortInByteOrderWithinABucket) {
  std::vector<std::string> keys = {"", "a", "a/", "a/b", "a\x7f", "b", "\xc3\xa9", "\xe4\xb8\xad",
                                   "\xff", "a\0b"s, "A"};
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> encoded;
  for (const auto& k : keys) encoded.push_back(ObjectKey("bkt", k));
  std::sort(encoded.begin(), encoded.end());
  for (size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(encoded[i], ObjectKey("bkt", sorted[i]));
    EXPECT_GE(encoded[i], ObjectPrefix("bkt"));
    EXPECT_LT(encoded[i], ObjectPrefixEnd("bkt"));
  }
  // Another bucket whose name extends this one sorts outside its range.
  EXPECT_GE(ObjectKey("bkt2", ""), ObjectPrefixEnd("bkt"));
  EXPECT_LT(ObjectKey("bk", "\xff\xff"), ObjectPrefix("bkt"));
}

TEST(Codec, DataKeysSortByIdThenChunk) {
  std::vector<std::pair<uint64_t, uint64_t>> ids = {{1, 0}, {1, 1}, {1, 256}, {2, 0}, {256, 0}, {UINT64_MAX, 3}};
  for (size_t i = 0; i + 1 < ids.size(); ++i) {
    EXPECT_LT(DataKey(ids[i].first, ids[i].second), DataKey(ids[i + 1].first, ids[i + 1].second));
  }
  for (auto [id, chunk] : ids) {
    uint64_t a, b;
    ASSERT_TRUE(DecodeDataKey(DataKey(id, chunk), &a, &b));
    EXPECT_EQ(a, id);
    EXPECT_EQ(b, chunk);
    ASSERT_TRUE(DecodeMarkerKey(MarkerKey(id), &a));
    EXPECT_EQ(a, id);
    ASSERT_TRUE(DecodeFileRefKey(FileRefKey(id), &a));
    EXPECT_EQ(a, id);
    // File references and pending markers share the uploads family: never the same key.
    EXPECT_NE(FileRefKey(id), MarkerKey(id));
    EXPECT_FALSE(DecodeFileRefKey(MarkerKey(id), &a));
    EXPECT_FALSE(DecodeMarkerKey(FileRefKey(id), &a));
  }
  uint64_t a, b;
  EXPECT_FALSE(DecodeDataKey("short", &a, &b));
  EXPECT_FALSE(DecodeMarkerKey("x12345678", &a));
  EXPECT_FALSE(DecodeFileRefKey("f1234567", &a));
  EXPECT_FALSE(DecodeFileRefKey("f123456789", &a));
  // File references sort by id, outside the ranges of uploads and parts.
  EXPECT_LT(FileRefKey(1), FileRefKey(256));
  EXPECT_LT(FileRefKey(UINT64_MAX), MarkerKey(0));
  EXPECT_FALSE(FileRefKey(5).starts_with(UploadPrefix("b")));
}

TEST(Codec, PrefixSuccessor) {
  struct Case {
    std::string in, want;
  } cases[] = {
      {"", ""}, {"a", "b"}, {"a/", "a0"}, {"a\xff", "b"}, {"\xff\xff", ""}, {"ab\xfe", "ab\xff"},
  };
  for (const auto& c : cases) EXPECT_EQ(PrefixSuccessor(c.in), c.want) << c.in;
}

TEST(Codec, GrantIndexKeysStayInsideTheirBucket) {
  EXPECT_GE(GrantIndexKey("b", "ba-1"), GrantIndexPrefix("b"));
  EXPECT_LT(GrantIndexKey("b", "\xff"), GrantIndexPrefixEnd("b"));
  EXPECT_GE(GrantIndexKey("b2", ""), GrantIndexPrefixEnd("b"));
  EXPECT_NE(AccessKeyKey("x").front(), GrantIndexKey("x", "y").front());
}

}  // namespace
}  // namespace cubby::storage::codec

namespace cubby::storage::codec {
namespace {

// Format 3: bucket records carry versioning and object lock; object records a version id,
// sequence and lock state; records of formats 1-2 decode as unversioned / null versions.
TEST(Codec, VersioningFieldsRoundTrip) {
  BucketRecord b;
  b.name = "v";
  b.versioning = VersioningState::kSuspended;
  b.object_lock.enabled = true;
  Result<BucketRecord> back = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->versioning, VersioningState::kSuspended);
  EXPECT_EQ(back->object_lock, b.object_lock);
  // An out-of-range state is corruption.
  std::string enc = EncodeBucket(b);
  const std::string lock = EncodeObjectLockConfig(b.object_lock);
  enc[enc.size() - lock.size() - 2] = 3;  // the state byte, before the lock's length and bytes
  EXPECT_EQ(DecodeBucket(enc).status().code(), Code::kCorruption);

  ObjectMeta m;
  m.size = 2;
  m.inline_data = "hi";
  m.version_id = FormatVersionId(42, 7);
  m.version_seq = 42;
  m.lock.legal_hold = LegalHold::kOn;
  Result<ObjectMeta> mb = DecodeObjectMeta(EncodeObjectMeta(m));
  ASSERT_TRUE(mb.ok()) << mb.status().ToString();
  EXPECT_EQ(mb->version_id, m.version_id);
  EXPECT_EQ(mb->version_seq, 42u);
  EXPECT_EQ(mb->lock, m.lock);
  EXPECT_EQ(mb->inline_data, "hi");
  // Without versioning fields an object keeps its old encoding (version byte 1).
  ObjectMeta plain;
  EXPECT_EQ(EncodeObjectMeta(plain)[0], 1);
  EXPECT_EQ(EncodeObjectMeta(m)[0], 4);
  // A version entry: the flag, then the object record.
  Result<StoredVersion> v = DecodeVersion(EncodeVersion(m, true));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->delete_marker);
  EXPECT_EQ(v->meta.version_id, m.version_id);
  for (const std::string& bad : {""s, "\x01"s, "\x02\x00"s, "\x01\x02"s + EncodeObjectMeta(m),
                                 "\x01\x00"s + EncodeObjectMeta(m) + "x"}) {
    EXPECT_EQ(DecodeVersion(bad).status().code(), Code::kCorruption);
  }
}

// A bucket record moves to version 4 only when it has lifecycle rules, so every other bucket
// keeps its bytes; a version-4 record without rules, or with undecodable ones, is corrupt.
TEST(Codec, LifecycleFieldVersions) {
  BucketRecord b;
  b.name = "b";
  EXPECT_EQ(EncodeBucket(b)[0], 2);
  b.versioning = VersioningState::kEnabled;
  const std::string v3 = EncodeBucket(b);
  EXPECT_EQ(v3[0], 3);
  LifecycleRule rule;
  rule.id = "r";
  rule.expiration_days = 1;
  b.lifecycle.rules = {rule};
  const std::string v4 = EncodeBucket(b);
  EXPECT_EQ(v4[0], 4);
  Result<BucketRecord> back = DecodeBucket(v4);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->lifecycle, b.lifecycle);
  EXPECT_EQ(back->versioning, VersioningState::kEnabled);
  // Removing the rules gives back the version-3 bytes.
  b.lifecycle = {};
  EXPECT_EQ(EncodeBucket(b), v3);
  // Version 4 with an empty configuration, and with a corrupt one.
  const std::string no_rules = EncodeLifecycleConfig(LifecycleConfig{});
  std::string empty = v3 + static_cast<char>(no_rules.size()) + no_rules;
  empty[0] = 4;
  EXPECT_EQ(DecodeBucket(empty).status().code(), Code::kCorruption);
  std::string bad = v3 + "\x01\x7f"s;
  bad[0] = 4;
  EXPECT_EQ(DecodeBucket(bad).status().code(), Code::kCorruption);
  // Version 3 bytes followed by a configuration are trailing bytes for version 3.
  std::string v3_tail = v4;
  v3_tail[0] = 3;
  EXPECT_EQ(DecodeBucket(v3_tail).status().code(), Code::kCorruption);
}

// A bucket record moves to version 6 only when it has CORS rules, so every other bucket keeps
// its bytes; version 6 may carry an empty lifecycle configuration and no tags, but not an
// empty CORS configuration.
TEST(Codec, CorsFieldVersions) {
  BucketRecord b;
  b.name = "b";
  b.versioning = VersioningState::kEnabled;
  const std::string v3 = EncodeBucket(b);
  ASSERT_EQ(v3[0], 3);
  CorsRule rule;
  rule.allowed_methods = {"GET"};
  rule.allowed_origins = {"*"};
  b.cors.rules = {rule};
  const std::string v6 = EncodeBucket(b);
  EXPECT_EQ(v6[0], 6);
  Result<BucketRecord> back = DecodeBucket(v6);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->cors, b.cors);
  EXPECT_TRUE(back->lifecycle.rules.empty());
  EXPECT_EQ(back->versioning, VersioningState::kEnabled);
  // Removing the rules gives back the version-3 bytes.
  b.cors = {};
  EXPECT_EQ(EncodeBucket(b), v3);
  // With lifecycle rules too, both come back.
  LifecycleRule expire;
  expire.id = "r";
  expire.expiration_days = 1;
  b.lifecycle.rules = {expire};
  const std::string v4 = EncodeBucket(b);
  ASSERT_EQ(v4[0], 4);
  b.cors.rules = {rule};
  back = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->cors, b.cors);
  EXPECT_EQ(back->lifecycle, b.lifecycle);
  // And with tags.
  b.tags = {{"k", "v"}};
  back = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->cors, b.cors);
  EXPECT_EQ(back->tags, b.tags);
  b.tags.clear();
  // Version 6 (no tags) with an empty CORS configuration, and with a corrupt one.
  const std::string no_rules = EncodeCorsConfig(CorsConfig{});
  std::string empty = v4 + "\x00"s + static_cast<char>(no_rules.size()) + no_rules;
  empty[0] = 6;
  EXPECT_EQ(DecodeBucket(empty).status().code(), Code::kCorruption);
  std::string bad = v4 + "\x00\x02\x01\x7f"s;
  bad[0] = 6;
  EXPECT_EQ(DecodeBucket(bad).status().code(), Code::kCorruption);
  // Version 4 bytes followed by a CORS configuration are trailing bytes for version 4, and a
  // version-4 record still needs lifecycle rules.
  std::string v4_tail = EncodeBucket(b);
  v4_tail[0] = 4;
  EXPECT_EQ(DecodeBucket(v4_tail).status().code(), Code::kCorruption);
  b.lifecycle = {};
  std::string v4_empty = EncodeBucket(b);  // version 6, empty lifecycle, no tags
  v4_empty[0] = 4;
  v4_empty.resize(v4_empty.size() - 1 - EncodeCorsConfig(b.cors).size() - 1);
  EXPECT_EQ(DecodeBucket(v4_empty).status().code(), Code::kCorruption);
}

// A bucket record moves to version 7 only when it has an encryption rule, so every other bucket
// keeps its bytes (records written before it decode with none); version 7 may carry an empty
// CORS configuration but not an empty encryption configuration.
TEST(Codec, EncryptionFieldVersions) {
  BucketRecord b;
  b.name = "b";
  b.versioning = VersioningState::kEnabled;
  const std::string v3 = EncodeBucket(b);
  ASSERT_EQ(v3[0], 3);
  Result<BucketRecord> back = DecodeBucket(v3);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->encryption.rules.empty());
  b.encryption.rules = {{SseAlgorithm::kAes256, "", false}};
  const std::string v7 = EncodeBucket(b);
  EXPECT_EQ(v7[0], 7);
  back = DecodeBucket(v7);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->encryption, b.encryption);
  EXPECT_TRUE(back->cors.rules.empty());
  EXPECT_EQ(back->versioning, VersioningState::kEnabled);
  // Removing the rule gives back the version-3 bytes.
  b.encryption = {};
  EXPECT_EQ(EncodeBucket(b), v3);
  // With CORS rules too, both come back; without the rule, the version-6 bytes.
  CorsRule rule;
  rule.allowed_methods = {"GET"};
  rule.allowed_origins = {"*"};
  b.cors.rules = {rule};
  const std::string v6 = EncodeBucket(b);
  ASSERT_EQ(v6[0], 6);
  b.encryption.rules = {{SseAlgorithm::kAwsKms, "alias/a", true}};
  back = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->cors, b.cors);
  EXPECT_EQ(back->encryption, b.encryption);
  // Version 7 with an empty encryption configuration, and with a corrupt one.
  const std::string no_rules = EncodeBucketEncryption(BucketEncryption{});
  std::string empty = v6 + static_cast<char>(no_rules.size()) + no_rules;
  empty[0] = 7;
  EXPECT_EQ(DecodeBucket(empty).status().code(), Code::kCorruption);
  std::string bad = v6 + "\x05\x01\x01\x09\x00\x00"s;
  bad[0] = 7;
  EXPECT_EQ(DecodeBucket(bad).status().code(), Code::kCorruption);
  // Version-6 bytes followed by an encryption configuration are trailing bytes for version 6.
  std::string v6_tail = EncodeBucket(b);
  v6_tail[0] = 6;
  EXPECT_EQ(DecodeBucket(v6_tail).status().code(), Code::kCorruption);
  // A version-9 record is unknown.
  std::string v9 = EncodeBucket(b);
  v9[0] = 9;
  EXPECT_EQ(DecodeBucket(v9).status().code(), Code::kCorruption);
}

// Issue 17: a bucket record moves to version 8 only when it has a quota, so every other bucket
// keeps its bytes, and records of versions 1-7 decode with no quota. Version 8 carries the
// encryption configuration possibly empty, then a flags byte and the limits it announces.
TEST(Codec, QuotaFieldVersions) {
  BucketRecord b;
  b.name = "q";
  const std::string v2 = EncodeBucket(b);
  ASSERT_EQ(v2[0], 2);
  Result<BucketRecord> back = DecodeBucket(v2);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->quota, BucketQuota{});

  // The bytes, spelled out: version 2's, then version 3's versioning state and (empty) lock
  // configuration, version 4's empty lifecycle, 5's no tags, 6's empty CORS, 7's empty
  // encryption, and the quota: flags 3, 1 MiB (varint 80 80 40), 10 objects.
  b.quota = {.bytes = 1 << 20, .objects = 10};
  const std::string v8 = EncodeBucket(b);
  const std::string tail = "\x03\x80\x80\x40\x0a"s;
  ASSERT_GT(v8.size(), tail.size());
  EXPECT_EQ(v8[0], 8);
  EXPECT_EQ(v8.substr(v8.size() - tail.size()), tail);
  std::string expected_head = v2.substr(1);
  expected_head = "\x08"s + expected_head + "\x00"s +
                  static_cast<char>(EncodeObjectLockConfig({}).size()) +
                  EncodeObjectLockConfig({}) + static_cast<char>(EncodeLifecycleConfig({}).size()) +
                  EncodeLifecycleConfig({}) + "\x00"s +
                  static_cast<char>(EncodeCorsConfig({}).size()) + EncodeCorsConfig({}) +
                  static_cast<char>(EncodeBucketEncryption({}).size()) + EncodeBucketEncryption({});
  EXPECT_EQ(v8, expected_head + tail);
  back = DecodeBucket(v8);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->quota, b.quota);
  EXPECT_EQ(back->versioning, VersioningState::kUnversioned);
  EXPECT_TRUE(back->encryption.rules.empty());

  // Either limit alone, zero and the largest values.
  for (const BucketQuota& quota :
       {BucketQuota{.bytes = 0}, BucketQuota{.objects = 0}, BucketQuota{.bytes = UINT64_MAX},
        BucketQuota{.bytes = 5, .objects = UINT64_MAX}}) {
    b.quota = quota;
    back = DecodeBucket(EncodeBucket(b));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(back->quota, quota);
    EXPECT_EQ(EncodeBucket(b)[0], 8);
  }
  // With an encryption rule too, both come back; removing the quota gives back version 7.
  b.encryption.rules = {{SseAlgorithm::kAes256, "", false}};
  b.quota = {.objects = 3};
  back = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->encryption, b.encryption);
  EXPECT_EQ(back->quota, b.quota);
  b.quota = {};
  const std::string v7 = EncodeBucket(b);
  EXPECT_EQ(v7[0], 7);
  back = DecodeBucket(v7);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->quota, BucketQuota{});

  // Corrupt quotas: no limit announced, an unknown flag, a limit missing, a version-7 record
  // with a quota's bytes after it.
  const std::string head = expected_head;
  for (const std::string& bad : {head + "\x00"s, head + "\x04\x01"s, head + "\x07\x01\x01\x01"s,
                                 head + "\x03\x01"s, head + "\x02"s, head}) {
    EXPECT_EQ(DecodeBucket(bad).status().code(), Code::kCorruption);
  }
  std::string v7_tail = v7 + "\x01\x05"s;
  EXPECT_EQ(DecodeBucket(v7_tail).status().code(), Code::kCorruption);
}

// Tags move a record to a version of its own only when it has some: untagged buckets and
// objects keep their bytes (so records written before tags existed decode, and re-encode
// byte for byte); a tagged record without tags, or with truncated ones, is corrupt.
TEST(Codec, TagFieldVersions) {
  BucketRecord b;
  b.name = "b";
  b.versioning = VersioningState::kEnabled;
  const std::string v3 = EncodeBucket(b);
  ASSERT_EQ(v3[0], 3);
  b.tags = {{"env", "prod"}, {"a", ""}};  // order as given, not sorted
  const std::string v5 = EncodeBucket(b);
  EXPECT_EQ(v5[0], 5);
  Result<BucketRecord> back = DecodeBucket(v5);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(b, *back);
  // Tags and lifecycle rules together.
  LifecycleRule rule;
  rule.id = "r";
  rule.expiration_days = 1;
  b.lifecycle.rules = {rule};
  back = DecodeBucket(EncodeBucket(b));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(b, *back);
  // Removing the tags gives back the version-4 bytes, then without rules the version-3 ones.
  b.tags.clear();
  EXPECT_EQ(EncodeBucket(b)[0], 4);
  b.lifecycle = {};
  EXPECT_EQ(EncodeBucket(b), v3);
  // Version 5 with no tags, with truncated tags, and version 4 with a tag tail.
  const std::string no_rules = EncodeLifecycleConfig(LifecycleConfig{});
  std::string untagged = v3 + static_cast<char>(no_rules.size()) + no_rules + "\x00"s;
  untagged[0] = 5;
  EXPECT_EQ(DecodeBucket(untagged).status().code(), Code::kCorruption);
  EXPECT_EQ(DecodeBucket(v5.substr(0, v5.size() - 1)).status().code(), Code::kCorruption);
  std::string v4_tail = v5;
  v4_tail[0] = 4;
  EXPECT_EQ(DecodeBucket(v4_tail).status().code(), Code::kCorruption);

  ObjectMeta m;
  m.size = 2;
  m.inline_data = "hi";
  m.owner_id = "o";
  const std::string v3_meta = EncodeObjectMeta(m);
  ASSERT_EQ(v3_meta[0], 3);
  m.tags = {{"k2", "v2"}, {"k1", "v1"}};
  const std::string v5_meta = EncodeObjectMeta(m);
  EXPECT_EQ(v5_meta[0], 5);
  Result<ObjectMeta> mb = DecodeObjectMeta(v5_meta);
  ASSERT_TRUE(mb.ok()) << mb.status().ToString();
  ExpectSame(m, *mb);
  EXPECT_TRUE(mb->version_id.empty());
  Result<ObjectSummary> summary = DecodeObjectSummary(v5_meta);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->size, 2u);
  // In a version entry and in an upload record (CreateMultipartUpload's tags).
  Result<StoredVersion> v = DecodeVersion(EncodeVersion(m, false));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->meta.tags, m.tags);
  UploadRecord u;
  u.bucket = "b";
  u.key = "k";
  u.upload_id = std::string(kUploadIdLength, 'a');
  u.meta.tags = m.tags;
  Result<UploadRecord> ub = DecodeUpload(EncodeUpload(u));
  ASSERT_TRUE(ub.ok()) << ub.status().ToString();
  EXPECT_EQ(ub->meta.tags, m.tags);
  m.tags.clear();
  EXPECT_EQ(EncodeObjectMeta(m), v3_meta);
  // Version 5 with no tags, truncated tags, version 4 with a tag tail.
  std::string v4_meta = EncodeObjectMeta([&] {
    ObjectMeta x = m;
    x.version_seq = 1;
    return x;
  }());
  ASSERT_EQ(v4_meta[0], 4);
  std::string empty_tags = v4_meta + "\x00"s;
  empty_tags[0] = 5;
  EXPECT_EQ(DecodeObjectMeta(empty_tags).status().code(), Code::kCorruption);
  EXPECT_EQ(DecodeObjectMeta(v5_meta.substr(0, v5_meta.size() - 1)).status().code(),
            Code::kCorruption);
  std::string tail = v5_meta;
  tail[0] = 4;
  EXPECT_EQ(DecodeObjectMeta(tail).status().code(), Code::kCorruption);
}

// The storage class and the parts' checksums move an object record to version 6 only when set,
// so other objects keep their bytes (and records written before them decode, and re-encode
// byte for byte); a version-6 record without either, with truncated ones, or with a parts'
// checksum list that does not match the parts, is corrupt.
TEST(Codec, StorageClassAndPartChecksumVersions) {
  ObjectMeta m;
  m.size = 2;
  m.inline_data = "hi";
  m.owner_id = "o";
  const std::string v3_meta = EncodeObjectMeta(m);
  ASSERT_EQ(v3_meta[0], 3);
  m.tags = {{"k", "v"}};
  const std::string v5_meta = EncodeObjectMeta(m);
  ASSERT_EQ(v5_meta[0], 5);

  struct Case {
    const char* name;
    std::string storage_class;
    std::vector<uint64_t> part_sizes;
    std::vector<std::string> part_checksums;
    bool tagged;
  };
  const Case cases[] = {
      {"class alone", "STANDARD_IA", {}, {}, false},
      {"class and tags", "GLACIER_IR", {}, {}, true},
      {"parts' checksums alone", "", {1, 1}, {"AAAAAA==", "AAAAAQ=="}, false},
      {"both, tagged", "REDUCED_REDUNDANCY", {2}, {"AAAAAA=="}, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ObjectMeta x = m;
    if (!c.tagged) x.tags.clear();
    x.storage_class = c.storage_class;
    x.part_sizes = c.part_sizes;
    x.part_checksums = c.part_checksums;
    const std::string v6 = EncodeObjectMeta(x);
    EXPECT_EQ(v6[0], 6);
    Result<ObjectMeta> back = DecodeObjectMeta(v6);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ExpectSame(x, *back);
    Result<ObjectSummary> summary = DecodeObjectSummary(v6);
    ASSERT_TRUE(summary.ok());
    EXPECT_EQ(summary->storage_class, c.storage_class);
    EXPECT_EQ(summary->size, 2u);
    // Truncated.
    EXPECT_EQ(DecodeObjectMeta(v6.substr(0, v6.size() - 1)).status().code(), Code::kCorruption);
    // The same bytes read as version 5 have a tail.
    std::string as_v5 = v6;
    as_v5[0] = 5;
    EXPECT_EQ(DecodeObjectMeta(as_v5).status().code(), Code::kCorruption);
    // In a version entry and an upload record (CreateMultipartUpload's storage class).
    Result<StoredVersion> v = DecodeVersion(EncodeVersion(x, false));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->meta.storage_class, c.storage_class);
    EXPECT_EQ(v->meta.part_checksums, c.part_checksums);
  }
  UploadRecord u;
  u.bucket = "b";
  u.key = "k";
  u.upload_id = std::string(kUploadIdLength, 'a');
  u.meta.storage_class = "ONEZONE_IA";
  Result<UploadRecord> ub = DecodeUpload(EncodeUpload(u));
  ASSERT_TRUE(ub.ok()) << ub.status().ToString();
  EXPECT_EQ(ub->meta.storage_class, "ONEZONE_IA");

  // Unset again: the old bytes exactly.
  ObjectMeta x = m;
  x.storage_class = "STANDARD_IA";
  x.storage_class.clear();
  EXPECT_EQ(EncodeObjectMeta(x), v5_meta);
  x.tags.clear();
  EXPECT_EQ(EncodeObjectMeta(x), v3_meta);

  // Version 6 with neither field: v5 bytes + empty class + no checksums.
  std::string neither = v5_meta + "\x00\x00"s;
  neither[0] = 6;
  EXPECT_EQ(DecodeObjectMeta(neither).status().code(), Code::kCorruption);
  // Version 6 with an empty tag list decodes (tags are optional there).
  std::string no_tags = v3_meta;
  {
    ObjectMeta y = m;
    y.tags.clear();
    y.version_seq = 1;
    no_tags = EncodeObjectMeta(y);  // version 4
  }
  ASSERT_EQ(no_tags[0], 4);
  std::string v6_no_tags = no_tags + "\x00\x03STD\x00"s;
  v6_no_tags[0] = 6;
  Result<ObjectMeta> nt = DecodeObjectMeta(v6_no_tags);
  ASSERT_TRUE(nt.ok()) << nt.status().ToString();
  EXPECT_EQ(nt->storage_class, "STD");
  EXPECT_TRUE(nt->tags.empty());
  // Parts' checksums that do not match the parts (2 checksums, no parts).
  std::string mismatched = no_tags + "\x00\x00\x02\x01a\x01b"s;
  mismatched[0] = 6;
  EXPECT_EQ(DecodeObjectMeta(mismatched).status().code(), Code::kCorruption);
}

TEST(Codec, VersionIds) {
  const std::string id = FormatVersionId(0x0123456789abcdefull, 0xfedcba9876543210ull);
  EXPECT_EQ(id, "0123456789abcdeffedcba9876543210");
  uint64_t seq = 0;
  ASSERT_TRUE(ParseVersionId(id, &seq));
  EXPECT_EQ(seq, 0x0123456789abcdefull);
  for (const std::string& bad :
       {""s, "null"s, std::string(31, '1'), std::string(33, '1'), std::string(32, 'A'),
        std::string(32, 'x'), std::string(16, '0') + std::string(16, '1')}) {
    EXPECT_FALSE(ParseVersionId(bad, &seq)) << bad;
  }
}

// A key's versions are contiguous (null pointer first, then newest first), keys sort as their
// object keys do (NUL bytes in keys included), and every entry splits back.
TEST(Codec, VersionKeysSortByKeyThenNewestFirst) {
  const std::vector<std::string> keys = {"", "a", "a\0"s, "a\0b"s, "a/", "ab", "b", "\xff"};
  std::vector<std::string> want;
  for (const std::string& k : keys) {
    want.push_back(NullVersionKey("bkt", k));
    for (uint64_t seq : {900ull, 20ull, 1ull}) want.push_back(VersionKey("bkt", k, seq));
  }
  std::vector<std::string> sorted = want;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, want);
  for (const std::string& k : keys) {
    std::string name;
    char tag = 0;
    uint64_t seq = 0;
    ASSERT_TRUE(DecodeVersionKey("bkt", VersionKey("bkt", k, 77), &name, &tag, &seq));
    EXPECT_EQ(name, k);
    EXPECT_EQ(tag, kVersionTag);
    EXPECT_EQ(seq, 77u);
    ASSERT_TRUE(DecodeVersionKey("bkt", NullVersionKey("bkt", k), &name, &tag, &seq));
    EXPECT_EQ(name, k);
    EXPECT_EQ(tag, kNullVersionTag);
    // Inside the bucket's range, and under the name prefix of each of its prefixes.
    EXPECT_GE(VersionKey("bkt", k, 1), ObjectPrefix("bkt"));
    EXPECT_LT(VersionKey("bkt", k, 1), ObjectPrefixEnd("bkt"));
    for (size_t n = 0; n <= k.size(); ++n) {
      EXPECT_EQ(VersionKey("bkt", k, 5).rfind(VersionNamePrefix("bkt", k.substr(0, n)), 0), 0u);
    }
  }
  std::string name;
  char tag = 0;
  uint64_t seq = 0;
  for (const std::string& bad : {"bkt"s, "bkt\0a"s, "bkt\0a\0"s, "bkt\0a\0\x01"s,
                                 "bkt\0a\0\x01v123"s, "other\0a\0\x01n"s, "bkt\0a\0\x02n"s}) {
    EXPECT_FALSE(DecodeVersionKey("bkt", bad, &name, &tag, &seq)) << bad;
  }
}

// Issue 16: an encrypted object is a version-7 record (its size the plaintext's, its stored size
// in the encryption record); a sealed part a version-2 part record. Old versions still decode.
TEST(Codec, SealedObjectAndPartRecords) {
  ObjectMeta m;
  m.size = 5;
  m.etag = "e";
  m.inline_data = std::string(5 + 16, 'x');  // one sealed segment
  m.encryption.mode = SseMode::kSseKms;
  m.encryption.wrapped_key = std::string(61, '\1');
  m.encryption.stored_size = 21;
  m.encryption.kms_key_arn = "arn:aws:kms:us-east-1:123456789012:key/k";
  m.encryption.kms_context = "e30=";
  m.encryption.bucket_key_enabled = true;
  const std::string v7 = EncodeObjectMeta(m);
  ASSERT_EQ(v7[0], 7);
  Result<ObjectMeta> back = DecodeObjectMeta(v7);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(m, *back);
  EXPECT_EQ(back->StoredSize(), 21u);
  Result<ObjectSummary> summary = DecodeObjectSummary(v7);
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->size, 5u);
  ExpectCorruptVariants(v7, [](std::string_view in) { return DecodeObjectMeta(in); });
  // Inline bytes that are not the stored size are corruption.
  ObjectMeta bad = m;
  bad.encryption.stored_size = 20;
  EXPECT_EQ(DecodeObjectMeta(EncodeObjectMeta(bad)).status().code(), Code::kCorruption);
  // An unknown mode is corruption.
  std::string mode_9 = v7;
  const size_t at = v7.size() - (1 + 1 + 61 + 1 + 1 + 1 + 1 + m.encryption.kms_key_arn.size() + 1 + 4 + 1 + 1);
  ASSERT_EQ(mode_9[at], 3);
  mode_9[at] = 9;
  EXPECT_EQ(DecodeObjectMeta(mode_9).status().code(), Code::kCorruption);

  // A sealed multipart object: one wrapped key per segment.
  ObjectMeta mp;
  mp.size = 10;
  mp.part_sizes = {5, 5};
  mp.segments = {DataSegment{7, 21, 0}, DataSegment{8, 21, 0}};
  mp.encryption.mode = SseMode::kSseC;
  mp.encryption.part_keys = {"a", "b"};
  mp.encryption.upload_id = "u";
  mp.encryption.customer_key_check = "v1:x:y";
  Result<ObjectMeta> mpb = DecodeObjectMeta(EncodeObjectMeta(mp));
  ASSERT_TRUE(mpb.ok()) << mpb.status().ToString();
  ExpectSame(mp, *mpb);
  mp.encryption.part_keys.pop_back();
  EXPECT_EQ(DecodeObjectMeta(EncodeObjectMeta(mp)).status().code(), Code::kCorruption);

  PartRecord p;
  p.part_number = 3;
  p.size = 5;
  p.etag = "x";
  p.data = DataSegment{9, 21, 0};
  p.wrapped_key = "w";
  const std::string part = EncodePart(p);
  ASSERT_EQ(part[0], 2);
  Result<PartRecord> pb = DecodePart(part);
  ASSERT_TRUE(pb.ok()) << pb.status().ToString();
  EXPECT_EQ(pb->size, 5u);
  EXPECT_EQ(pb->data.size, 21u);
  EXPECT_EQ(pb->wrapped_key, "w");
  ExpectCorruptVariants(part, [](std::string_view in) { return DecodePart(in); });
  p.data.size = 5;  // a sealed part stores more than its plaintext
  EXPECT_EQ(DecodePart(EncodePart(p)).status().code(), Code::kCorruption);
}

}  // namespace
}  // namespace cubby::storage::codec
