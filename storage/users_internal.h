// Private to storage/: the records a user change puts into a WriteBatch, shared by the store
// (store_keys.cc) and the format-2 migration (format.cc). Includes rocksdb.
#pragma once

#include <rocksdb/write_batch.h>

#include <string_view>

#include "storage/codec.h"
#include "storage/records.h"
#include "storage/users.h"

namespace cubby::storage {

// Adds `user` and its name index (and e-mail index when set) to `batch`, in family `keys`.
// REQUIRES: the caller checked that the name and address are free.
inline void AddPutUser(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* keys,
                       const UserRecord& user) {
  batch->Put(keys, codec::UserKey(user.user_id), codec::EncodeUser(user));
  batch->Put(keys, codec::UserNameKey(FoldName(user.name)), user.user_id);
  if (!user.email.empty())
    batch->Put(keys, codec::UserEmailKey(FoldName(user.email)), user.user_id);
}

// Adds the removal of `user` and its indexes (not its keys) to `batch`.
inline void AddDeleteUser(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* keys,
                          const UserRecord& user) {
  batch->Delete(keys, codec::UserKey(user.user_id));
  batch->Delete(keys, codec::UserNameKey(FoldName(user.name)));
  if (!user.email.empty()) batch->Delete(keys, codec::UserEmailKey(FoldName(user.email)));
}

// Adds `key` (whose user_id is set) and its entry in its user's key index to `batch`.
inline void AddPutUserKey(rocksdb::WriteBatch* batch, rocksdb::ColumnFamilyHandle* keys,
                          const AccessKeyRecord& key) {
  batch->Put(keys, codec::AccessKeyKey(key.access_key_id), codec::EncodeAccessKey(key));
  if (!key.user_id.empty()) {
    batch->Put(keys, codec::UserAccessKeyKey(key.user_id, key.access_key_id), "");
  }
}

}  // namespace cubby::storage
