// StoreImpl: access keys, COSI grants, users and their policies and tags (store_impl.h). The
// rules for names, tags and policy sizes are in users.h; the batch records of a user change
// in users_internal.h. Every change holds grant_mu_.
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "storage/codec.h"
#include "storage/keygen.h"
#include "storage/store_impl.h"
#include "storage/users.h"
#include "storage/users_internal.h"
#include "text/time.h"

namespace cubby::storage::internal {

template <typename Change>
Status StoreImpl::ChangeUser(std::string_view name, Change&& change) {
  auto grant_lock = LockKeysForChange();
  Result<UserRecord> user = GetUser(name);
  if (!user.ok()) return user.status();
  if (Status s = change(&*user); !s.ok()) return s;
  return ApplyPut(cf(kKeysCf), codec::UserKey(user->user_id), codec::EncodeUser(*user));
}

Result<AccessKeyRecord> StoreImpl::GetAccessKey(std::string_view access_key_id) {
  Result<std::optional<std::string>> raw =
      GetRaw(kKeysCf, codec::AccessKeyKey(access_key_id), nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) return Status(Code::kNoSuchAccessKey, "no such access key");
  return codec::DecodeAccessKey(**raw);
}

Status StoreImpl::PutAccessKey(const AccessKeyRecord& key) {
  if (key.access_key_id.empty()) return Status(Code::kInvalidArgument, "empty access key id");
  auto grant_lock = LockKeysForChange();
  rocksdb::WriteBatch batch;
  Result<AccessKeyRecord> previous = GetAccessKey(key.access_key_id);
  if (!previous.ok() && previous.status().code() != Code::kNoSuchAccessKey) {
    return previous.status();
  }
  if (previous.ok() && !previous->user_id.empty() && previous->user_id != key.user_id) {
    batch.Delete(cf(kKeysCf), codec::UserAccessKeyKey(previous->user_id, key.access_key_id));
  }
  AddPutUserKey(&batch, cf(kKeysCf), key);
  if (!key.grant_name.empty()) {
    for (const auto& [bucket, mode] : key.grants) {
      batch.Put(cf(kKeysCf), codec::GrantIndexKey(bucket, key.grant_name), key.access_key_id);
    }
  }
  return Apply(&batch);
}

Status StoreImpl::DeleteAccessKey(std::string_view access_key_id) {
  auto grant_lock = LockKeysForChange();
  Result<AccessKeyRecord> key = GetAccessKey(access_key_id);
  if (!key.ok()) return key.status().code() == Code::kNoSuchAccessKey ? Status::Ok() : key.status();
  rocksdb::WriteBatch batch;
  if (Status s = AddDeleteKeyLocked(*key, /*drop_cosi_user=*/true, &batch); !s.ok()) return s;
  return Apply(&batch);
}

Result<AccessKeyRecord> StoreImpl::GetOrCreateGrant(std::string_view bucket,
                                                    std::string_view grant_name,
                                                    const AccessKeyRecord& candidate,
                                                    bool* created) {
  *created = false;
  if (grant_name.empty() || candidate.access_key_id.empty() || candidate.grant_name != grant_name ||
      candidate.grants.size() != 1 || candidate.grants.begin()->first != bucket) {
    return Status(Code::kInvalidArgument, "grant candidate does not match (bucket, grant_name)");
  }
  std::shared_lock bucket_lock(BucketMutex(bucket));
  auto grant_lock = LockKeysForChange();
  if (Status s = RequireBucket(bucket); !s.ok()) return s;
  Result<std::optional<std::string>> existing =
      GetRaw(kKeysCf, codec::GrantIndexKey(bucket, grant_name), nullptr);
  if (!existing.ok()) return existing.status();
  if (existing->has_value()) return KeyByIndex(**existing, "grant index");
  return IssueGrantLocked(grant_name, candidate, created);
}

Result<AccessKeyRecord> StoreImpl::IssueGrantLocked(std::string_view grant_name,
                                                    const AccessKeyRecord& candidate,
                                                    bool* created) {
  Result<std::optional<std::string>> clash =
      GetRaw(kKeysCf, codec::AccessKeyKey(candidate.access_key_id), nullptr);
  if (!clash.ok()) return clash.status();
  if (clash->has_value()) return Status(Code::kAborted, "access key id already in use");
  // The key's user, made in the same batch (format 2: every COSI key is a user's).
  Result<UserRecord> user = NewGrantUserLocked(grant_name, candidate.access_key_id);
  if (!user.ok()) return user.status();
  AccessKeyRecord key = candidate;
  key.user_id = user->user_id;
  key.status = KeyStatus::kActive;
  rocksdb::WriteBatch batch;
  AddPutUser(&batch, cf(kKeysCf), *user);
  AddPutUserKey(&batch, cf(kKeysCf), key);
  for (const auto& [bucket, mode] : key.grants) {
    batch.Put(cf(kKeysCf), codec::GrantIndexKey(bucket, grant_name), key.access_key_id);
  }
  if (Status s = Apply(&batch); !s.ok()) return s;
  *created = true;
  return key;
}

Result<std::vector<AccessKeyRecord>> StoreImpl::ListGrants(std::string_view bucket) {
  std::vector<AccessKeyRecord> out;
  std::lock_guard grant_lock(grant_mu_);
  Status s = ForEach(kKeysCf, codec::GrantIndexPrefix(bucket), codec::GrantIndexPrefixEnd(bucket),
                     [&](std::string_view, std::string_view key_id) {
                       Result<AccessKeyRecord> key = KeyByIndex(key_id, "grant index");
                       if (!key.ok()) return key.status();
                       out.push_back(std::move(key).value());
                       return Status::Ok();
                     });
  if (!s.ok()) return s;
  return out;
}

Result<AccessKeyRecord> StoreImpl::GetOrCreateMultiGrant(std::string_view grant_name,
                                                         const AccessKeyRecord& candidate,
                                                         bool* created) {
  *created = false;
  if (grant_name.empty() || candidate.access_key_id.empty() || candidate.grant_name != grant_name ||
      candidate.grants.empty() || candidate.all_buckets) {
    return Status(Code::kInvalidArgument, "grant candidate does not match grant_name");
  }
  // Every named bucket's lock, shared, each stripe once, in address order (no lock cycles).
  std::vector<std::shared_mutex*> stripes;
  for (const auto& [bucket, mode] : candidate.grants) stripes.push_back(&BucketMutex(bucket));
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  std::vector<std::shared_lock<std::shared_mutex>> bucket_locks;
  for (std::shared_mutex* stripe : stripes) bucket_locks.emplace_back(*stripe);
  auto grant_lock = LockKeysForChange();

  for (const auto& [bucket, mode] : candidate.grants) {
    Result<std::optional<std::string>> existing =
        GetRaw(kKeysCf, codec::GrantIndexKey(bucket, grant_name), nullptr);
    if (!existing.ok()) return existing.status();
    if (existing->has_value()) return KeyByIndex(**existing, "grant index");
  }
  // The same grant name on buckets that share none with this request: its user, named after
  // the grant, still finds it.
  Result<std::optional<AccessKeyRecord>> by_user = GrantKeyByUserLocked(grant_name);
  if (!by_user.ok()) return by_user.status();
  if (by_user->has_value()) return std::move(**by_user);
  for (const auto& [bucket, mode] : candidate.grants) {
    if (Status s = RequireBucket(bucket); !s.ok()) return s;
  }
  return IssueGrantLocked(grant_name, candidate, created);
}

Result<std::string> StoreImpl::GetAccountId() { return GetSetting(kAccountIdSetting); }

Result<UserRecord> StoreImpl::CreateUser(const UserRecord& candidate) {
  UserRecord user = candidate;
  if (Status s = ValidateNewUser(&user); !s.ok()) return s;
  auto grant_lock = LockKeysForChange();
  Result<bool> taken = HasRaw(kKeysCf, codec::UserNameKey(FoldName(user.name)));
  if (!taken.ok()) return taken.status();
  if (*taken) return UserExists(user.name);
  if (!user.email.empty()) {
    taken = HasRaw(kKeysCf, codec::UserEmailKey(FoldName(user.email)));
    if (!taken.ok()) return taken.status();
    if (*taken) {
      return Status(Code::kEntityAlreadyExists,
                    "A user with e-mail address " + user.email + " already exists.");
    }
  }
  if (user.user_id.empty()) {
    Result<std::string> id = GenerateCanonicalId();
    if (!id.ok()) return id.status();
    user.user_id = std::move(id).value();
  } else {
    taken = HasRaw(kKeysCf, codec::UserKey(user.user_id));
    if (!taken.ok()) return taken.status();
    if (*taken) return Status(Code::kEntityAlreadyExists, "user id already in use");
  }
  rocksdb::WriteBatch batch;
  AddPutUser(&batch, cf(kKeysCf), user);
  if (Status s = Apply(&batch); !s.ok()) return s;
  return user;
}

Result<UserRecord> StoreImpl::GetUser(std::string_view name) {
  Result<std::optional<std::string>> id =
      GetRaw(kKeysCf, codec::UserNameKey(FoldName(name)), nullptr);
  if (!id.ok()) return id.status();
  if (!id->has_value()) return NoSuchUser(name);
  return UserByIndex(**id);
}

Result<UserRecord> StoreImpl::GetUserById(std::string_view user_id) {
  Result<std::optional<std::string>> raw = GetRaw(kKeysCf, codec::UserKey(user_id), nullptr);
  if (!raw.ok()) return raw.status();
  if (!raw->has_value()) {
    return Status(Code::kNoSuchEntity,
                  "The user with id " + std::string(user_id) + " cannot be found.");
  }
  return codec::DecodeUser(**raw);
}

Result<UserRecord> StoreImpl::FindUserByEmail(std::string_view email) {
  Result<std::optional<std::string>> id =
      GetRaw(kKeysCf, codec::UserEmailKey(FoldName(email)), nullptr);
  if (!id.ok()) return id.status();
  if (!id->has_value()) {
    return Status(Code::kNoSuchEntity,
                  "The user with e-mail address " + std::string(email) + " cannot be found.");
  }
  return UserByIndex(**id);
}

Result<UsersPage> StoreImpl::ListUsers(std::string_view marker, size_t max_items) {
  UsersPage page;
  const std::string prefix(1, codec::kUserNameTag);
  // <marker> 0x00 is the first key after <marker> itself.
  const std::string begin =
      marker.empty() ? prefix : codec::UserNameKey(marker) + std::string(1, '\0');
  std::string last;
  Status s = ForEach(kKeysCf, begin, codec::PrefixSuccessor(prefix),
                     [&](std::string_view key, std::string_view user_id) {
                       if (page.users.size() == max_items) {
                         page.truncated = true;
                         return Status(Code::kAborted, "page full");
                       }
                       Result<UserRecord> user = UserByIndex(user_id);
                       if (!user.ok()) return user.status();
                       page.users.push_back(std::move(user).value());
                       last = std::string(key.substr(1));
                       return Status::Ok();
                     });
  if (!s.ok() && !page.truncated) return s;
  if (page.truncated) page.next_marker = last;
  return page;
}

Status StoreImpl::DeleteUser(std::string_view name) {
  auto grant_lock = LockKeysForChange();
  Result<UserRecord> user = GetUser(name);
  if (!user.ok()) return user.status();
  if (FoldName(user->name) == kRootUserName) {
    return Status(Code::kDeleteConflict, "The root user cannot be deleted.");
  }
  Result<bool> has_keys = AnyKeyIn(kKeysCf, codec::UserAccessKeyPrefix(user->user_id),
                                   codec::UserAccessKeyPrefixEnd(user->user_id));
  if (!has_keys.ok()) return has_keys.status();
  if (*has_keys) {
    return Status(Code::kDeleteConflict, "Cannot delete entity, must delete access keys first.");
  }
  if (!user->policies.empty()) {
    return Status(Code::kDeleteConflict, "Cannot delete entity, must delete policies first.");
  }
  rocksdb::WriteBatch batch;
  AddDeleteUser(&batch, cf(kKeysCf), *user);
  return Apply(&batch);
}

Status StoreImpl::PutUserPolicy(std::string_view name, std::string_view policy_name,
                                std::string_view document) {
  if (Status s = ValidatePolicyName(policy_name); !s.ok()) return s;
  if (document.empty() || document.size() > kMaxPolicyDocumentBytes) {
    return Status(Code::kInvalidArgument, "a policy document is 1 to 131072 characters long");
  }
  return ChangeUser(name, [&](UserRecord* user) {
    user->policies[std::string(policy_name)] = std::string(document);
    size_t total = 0;
    for (const auto& [n, doc] : user->policies) total += PolicyChars(doc);
    if (total > kMaxUserPolicyChars) {
      return Status(Code::kLimitExceeded, "Maximum policy size of " +
                                              std::to_string(kMaxUserPolicyChars) +
                                              " bytes exceeded for user " + user->name);
    }
    return Status::Ok();
  });
}

Result<std::string> StoreImpl::GetUserPolicy(std::string_view name, std::string_view policy_name) {
  Result<UserRecord> user = GetUser(name);
  if (!user.ok()) return user.status();
  auto it = user->policies.find(std::string(policy_name));
  if (it == user->policies.end()) return NoSuchUserPolicy(policy_name);
  return it->second;
}

Result<std::vector<std::string>> StoreImpl::ListUserPolicies(std::string_view name) {
  Result<UserRecord> user = GetUser(name);
  if (!user.ok()) return user.status();
  std::vector<std::string> names;
  for (const auto& [n, doc] : user->policies) names.push_back(n);
  return names;
}

Status StoreImpl::DeleteUserPolicy(std::string_view name, std::string_view policy_name) {
  return ChangeUser(name, [&](UserRecord* user) {
    if (user->policies.erase(std::string(policy_name)) == 0) {
      return NoSuchUserPolicy(policy_name);
    }
    return Status::Ok();
  });
}

Status StoreImpl::TagUser(std::string_view name, const std::vector<UserTag>& tags) {
  for (const auto& [key, value] : tags) {
    if (Status s = ValidateTag(key, value); !s.ok()) return s;
  }
  return ChangeUser(name, [&](UserRecord* user) {
    // A named pair, not a structured binding: clang 14 (the fuzz/ build) cannot capture one.
    for (const UserTag& tag : tags) {
      auto same = std::find_if(user->tags.begin(), user->tags.end(),
                               [&](const UserTag& t) { return t.first == tag.first; });
      if (same != user->tags.end()) {
        same->second = tag.second;
      } else {
        user->tags.push_back(tag);
      }
    }
    if (user->tags.size() > kMaxTagsPerUser) {
      return Status(Code::kLimitExceeded, "The number of tags has reached the maximum limit.");
    }
    return Status::Ok();
  });
}

Status StoreImpl::UntagUser(std::string_view name, const std::vector<std::string>& keys) {
  return ChangeUser(name, [&](UserRecord* user) {
    std::erase_if(user->tags, [&](const UserTag& t) {
      return std::find(keys.begin(), keys.end(), t.first) != keys.end();
    });
    return Status::Ok();
  });
}

Result<std::vector<UserTag>> StoreImpl::ListUserTags(std::string_view name) {
  Result<UserRecord> user = GetUser(name);
  if (!user.ok()) return user.status();
  return std::move(user->tags);
}

Result<AccessKeyRecord> StoreImpl::CreateAccessKey(std::string_view user_name,
                                                   const AccessKeyRecord& candidate) {
  if (candidate.access_key_id.empty() || candidate.secret.empty()) {
    return Status(Code::kInvalidArgument, "an access key needs an id and a secret");
  }
  auto grant_lock = LockKeysForChange();
  Result<UserRecord> user = GetUser(user_name);
  if (!user.ok()) return user.status();
  Result<std::vector<AccessKeyRecord>> owned = KeysOf(user->user_id);
  if (!owned.ok()) return owned.status();
  if (owned->size() >= kMaxAccessKeysPerUser) {
    return Status(Code::kLimitExceeded, "Cannot exceed quota for AccessKeysPerUser: " +
                                            std::to_string(kMaxAccessKeysPerUser));
  }
  Result<bool> taken = HasRaw(kKeysCf, codec::AccessKeyKey(candidate.access_key_id));
  if (!taken.ok()) return taken.status();
  if (*taken) {
    return Status(Code::kEntityAlreadyExists,
                  "Access key " + candidate.access_key_id + " already exists.");
  }
  AccessKeyRecord key;
  key.access_key_id = candidate.access_key_id;
  key.secret = candidate.secret;
  key.created_ms = candidate.created_ms != 0 ? candidate.created_ms : text::NowUnixMillis();
  key.user_id = user->user_id;
  key.status = KeyStatus::kActive;
  // The administrator's keys are all administrator keys.
  key.all_buckets = FoldName(user->name) == kRootUserName;
  rocksdb::WriteBatch batch;
  AddPutUserKey(&batch, cf(kKeysCf), key);
  if (Status s = Apply(&batch); !s.ok()) return s;
  return key;
}

Result<std::vector<AccessKeyRecord>> StoreImpl::ListAccessKeys(std::string_view user_name) {
  Result<UserRecord> user = GetUser(user_name);
  if (!user.ok()) return user.status();
  return KeysOf(user->user_id);
}

Status StoreImpl::UpdateAccessKeyStatus(std::string_view user_name, std::string_view access_key_id,
                                        KeyStatus status) {
  auto grant_lock = LockKeysForChange();
  Result<AccessKeyRecord> key = KeyOfUser(user_name, access_key_id);
  if (!key.ok()) return key.status();
  key->status = status;
  return ApplyPut(cf(kKeysCf), codec::AccessKeyKey(access_key_id), codec::EncodeAccessKey(*key));
}

Status StoreImpl::DeleteUserAccessKey(std::string_view user_name, std::string_view access_key_id) {
  auto grant_lock = LockKeysForChange();
  Result<AccessKeyRecord> key = KeyOfUser(user_name, access_key_id);
  if (!key.ok()) return key.status();
  rocksdb::WriteBatch batch;
  if (Status s = AddDeleteKeyLocked(*key, /*drop_cosi_user=*/false, &batch); !s.ok()) return s;
  return Apply(&batch);
}

Status StoreImpl::NoSuchUser(std::string_view name) {
  return Status(Code::kNoSuchEntity,
                "The user with name " + std::string(name) + " cannot be found.");
}

Status StoreImpl::NoSuchUserPolicy(std::string_view policy_name) {
  return Status(Code::kNoSuchEntity,
                "The user policy with name " + std::string(policy_name) + " cannot be found.");
}

Status StoreImpl::UserExists(std::string_view name) {
  return Status(Code::kEntityAlreadyExists,
                "User with name " + std::string(name) + " already exists.");
}

Status StoreImpl::ValidateNewUser(UserRecord* user) {
  if (Status s = ValidateUserName(user->name); !s.ok()) return s;
  if (!user->email.empty()) {
    if (Status s = ValidateEmail(user->email); !s.ok()) return s;
  }
  if (!user->user_id.empty() && !IsCanonicalId(user->user_id)) {
    return Status(Code::kInvalidArgument, "a user id is 64 lowercase hex characters");
  }
  if (user->path.empty()) user->path = "/";
  if (user->path.front() != '/' || user->path.back() != '/' || user->path.size() > 512) {
    return Status(Code::kInvalidArgument, "a path starts and ends with /");
  }
  if (user->tags.size() > kMaxTagsPerUser) {
    return Status(Code::kLimitExceeded, "The number of tags has reached the maximum limit.");
  }
  for (const auto& [key, value] : user->tags) {
    if (Status s = ValidateTag(key, value); !s.ok()) return s;
  }
  if (user->display_name.empty()) user->display_name = user->name;
  if (user->created_ms == 0) user->created_ms = text::NowUnixMillis();
  return Status::Ok();
}

Result<UserRecord> StoreImpl::UserByIndex(std::string_view user_id) {
  Result<UserRecord> user = GetUserById(user_id);
  if (!user.ok() && user.status().code() == Code::kNoSuchEntity) {
    return Status(Code::kCorruption, "a user index points at a missing user");
  }
  return user;
}

Result<AccessKeyRecord> StoreImpl::KeyByIndex(std::string_view access_key_id,
                                              std::string_view index) {
  Result<AccessKeyRecord> key = GetAccessKey(access_key_id);
  if (!key.ok() && key.status().code() == Code::kNoSuchAccessKey) {
    return Status(Code::kCorruption, std::string(index) + " points at a missing access key");
  }
  return key;
}

Result<std::vector<AccessKeyRecord>> StoreImpl::KeysOf(std::string_view user_id) {
  std::vector<AccessKeyRecord> out;
  Status s =
      ForEach(kKeysCf, codec::UserAccessKeyPrefix(user_id), codec::UserAccessKeyPrefixEnd(user_id),
              [&](std::string_view index_key, std::string_view) {
                Result<AccessKeyRecord> key =
                    KeyByIndex(codec::UserAccessKeyId(user_id, index_key), "a user's key index");
                if (!key.ok()) return key.status();
                out.push_back(std::move(key).value());
                return Status::Ok();
              });
  if (!s.ok()) return s;
  return out;
}

Result<AccessKeyRecord> StoreImpl::KeyOfUser(std::string_view user_name,
                                             std::string_view access_key_id) {
  Result<UserRecord> user = GetUser(user_name);
  if (!user.ok()) return user.status();
  Result<AccessKeyRecord> key = GetAccessKey(access_key_id);
  if ((!key.ok() && key.status().code() == Code::kNoSuchAccessKey) ||
      (key.ok() && key->user_id != user->user_id)) {
    return Status(Code::kNoSuchEntity,
                  "The Access Key with id " + std::string(access_key_id) + " cannot be found.");
  }
  return key;
}

Status StoreImpl::AddDeleteKeyLocked(const AccessKeyRecord& key, bool drop_cosi_user,
                                     rocksdb::WriteBatch* batch) {
  batch->Delete(cf(kKeysCf), codec::AccessKeyKey(key.access_key_id));
  if (!key.grant_name.empty()) {
    for (const auto& [bucket, mode] : key.grants) {
      const std::string index_key = codec::GrantIndexKey(bucket, key.grant_name);
      Result<std::optional<std::string>> target = GetRaw(kKeysCf, index_key, nullptr);
      if (!target.ok()) return target.status();
      if (target->has_value() && **target == key.access_key_id) {
        batch->Delete(cf(kKeysCf), index_key);
      }
    }
  }
  if (key.user_id.empty()) return Status::Ok();
  batch->Delete(cf(kKeysCf), codec::UserAccessKeyKey(key.user_id, key.access_key_id));
  if (!drop_cosi_user || key.grant_name.empty()) return Status::Ok();
  Result<std::vector<AccessKeyRecord>> owned = KeysOf(key.user_id);
  if (!owned.ok()) return owned.status();
  for (const AccessKeyRecord& other : *owned) {
    if (other.access_key_id != key.access_key_id) return Status::Ok();
  }
  Result<UserRecord> user = GetUserById(key.user_id);
  if (!user.ok()) {
    return user.status().code() == Code::kNoSuchEntity ? Status::Ok() : user.status();
  }
  AddDeleteUser(batch, cf(kKeysCf), *user);
  return Status::Ok();
}

Result<std::optional<AccessKeyRecord>> StoreImpl::GrantKeyByUserLocked(
    std::string_view grant_name) {
  for (const std::string& name : {std::string(grant_name), GrantUserName(grant_name)}) {
    if (!ValidateUserName(name).ok()) continue;
    Result<UserRecord> user = GetUser(name);
    if (!user.ok()) {
      if (user.status().code() == Code::kNoSuchEntity) continue;
      return user.status();
    }
    Result<std::vector<AccessKeyRecord>> owned = KeysOf(user->user_id);
    if (!owned.ok()) return owned.status();
    for (AccessKeyRecord& key : *owned) {
      if (key.grant_name == grant_name && !key.all_buckets) return {std::move(key)};
    }
  }
  return {std::nullopt};
}

Result<UserRecord> StoreImpl::NewGrantUserLocked(std::string_view grant_name,
                                                 std::string_view key_id) {
  UserRecord user;
  for (const std::string& name :
       {std::string(grant_name), GrantUserName(grant_name), "cosi-" + FoldName(key_id)}) {
    user.name = name;
    if (!ValidateUserName(name).ok()) continue;
    Result<bool> taken = HasRaw(kKeysCf, codec::UserNameKey(FoldName(name)));
    if (!taken.ok()) return taken.status();
    if (!*taken) break;
  }
  if (Status s = ValidateNewUser(&user); !s.ok()) return s;
  Result<std::string> id = GenerateCanonicalId();
  if (!id.ok()) return id.status();
  user.user_id = std::move(id).value();
  return user;
}

Status StoreImpl::RevokeLocked(std::string_view key_id, std::string_view bucket,
                               rocksdb::WriteBatch* batch) {
  Result<AccessKeyRecord> key = GetAccessKey(key_id);
  if (!key.ok()) {
    return key.status().code() == Code::kNoSuchAccessKey ? Status::Ok() : key.status();
  }
  key->grants.erase(std::string(bucket));
  if (key->grants.empty() && !key->all_buckets) {
    // The grant index entries go with the bucket (the caller deletes them).
    AccessKeyRecord gone = *key;
    gone.grants.clear();
    return AddDeleteKeyLocked(gone, /*drop_cosi_user=*/true, batch);
  } else {
    batch->Put(cf(kKeysCf), codec::AccessKeyKey(key_id), codec::EncodeAccessKey(*key));
  }
  return Status::Ok();
}

}  // namespace cubby::storage::internal
