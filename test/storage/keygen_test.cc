#include "storage/keygen.h"

#include <gtest/gtest.h>

#include <set>

namespace cubby::storage {
namespace {

bool AllIn(const std::string& s, std::string_view alphabet) {
  return s.find_first_not_of(alphabet) == std::string::npos;
}

TEST(Keygen, FormatAndUniqueness) {
  std::set<std::string> ids, secrets;
  std::set<char> seen_id_chars;
  for (int i = 0; i < 2000; ++i) {
    Result<AccessKeyRecord> k = GenerateAccessKey();
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    const std::string& id = k->access_key_id;
    const std::string& secret = k->secret.reveal();
    ASSERT_EQ(id.size(), 20u);
    EXPECT_EQ(id.substr(0, 2), "CB");
    EXPECT_TRUE(AllIn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")) << id;
    ASSERT_EQ(secret.size(), 40u);
    EXPECT_TRUE(AllIn(secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"));
    EXPECT_FALSE(k->all_buckets);
    EXPECT_TRUE(k->grants.empty());
    ids.insert(id);
    secrets.insert(secret);
    seen_id_chars.insert(id.begin() + 2, id.end());
  }
  EXPECT_EQ(ids.size(), 2000u);
  EXPECT_EQ(secrets.size(), 2000u);
  EXPECT_EQ(seen_id_chars.size(), 36u);  // every id character shows up: no skewed alphabet
}

}  // namespace
}  // namespace cubby::storage
