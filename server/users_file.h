// The users file (CUBBY_USERS_FILE / --users-file): users with known keys, for test fixtures
// and appliances that are set up from files. One user per line:
//
//     # comment lines and blank lines are ignored
//     NAME ACCESS_KEY_ID SECRET_ACCESS_KEY [EMAIL]
//
// fields separated by spaces or tabs; NAME follows IAM's user-name rules, ACCESS_KEY_ID is 16 to
// 128 letters, digits or underscores, the secret 1 to 128 printable characters without spaces;
// EMAIL, optional, is the user's e-mail address, which ACL grants by e-mail resolve to (given on
// more than one line of a user, it must be the same). A user may appear on two lines (two keys,
// IAM's limit). Applied at every start, after the root key, idempotently: a missing user is
// created (with its e-mail address), a missing key is created for its user, and what exists is
// left as it is (a key's secret, a user's address are not changed). A key id that belongs to
// another user (or to root), or an address another user has, is an error that stops the start
// (exit 2). Messages never name a secret.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "storage/secret.h"
#include "storage/status.h"
#include "storage/store.h"

namespace cubby::server {

struct UsersFileLine {
  int line = 0;  // 1-based, for messages
  std::string name;
  std::string access_key_id;
  storage::SecretKey secret;
  std::string email;  // empty: none given
};

// Parses the file's text. kInvalidArgument naming the line ("users file line 3: ...") when a
// line does not have three or four fields, a field breaks its rule, or two lines of one user
// give different e-mail addresses.
storage::Result<std::vector<UsersFileLine>> ParseUsersFile(std::string_view text);

// What ApplyUsersFile did.
struct UsersFileOutcome {
  int users_created = 0;
  int keys_created = 0;
};

// Applies `lines` to `store` (see the file comment). kInvalidArgument when a key id belongs to
// another user or a user would get a third key; storage errors otherwise. `now_ms` stamps what
// is created. Lines before a failing one stay applied (a rerun after the fix completes it).
storage::Result<UsersFileOutcome> ApplyUsersFile(storage::Store& store,
                                                 const std::vector<UsersFileLine>& lines,
                                                 int64_t now_ms);

}  // namespace cubby::server
