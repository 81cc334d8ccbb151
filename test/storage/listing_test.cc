#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/store.h"
#include "test/storage/test_util.h"

namespace cubby::storage {
namespace {

using namespace std::string_literals;
using testing::Bucket;
using testing::OpenOrDie;
using testing::PutObject;
using testing::SmallOptions;
using testing::TempDir;

class ListTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenOrDie(SmallOptions(dir_.path()));
    ASSERT_NE(store_, nullptr);
    ASSERT_TRUE(store_->CreateBucket(Bucket("b")).ok());
    // Neighbouring buckets whose keys must never leak into "b"'s listing.
    ASSERT_TRUE(store_->CreateBucket(Bucket("a")).ok());
    ASSERT_TRUE(store_->CreateBucket(Bucket("b2")).ok());
    ASSERT_TRUE(PutObject(*store_, "a", "zzz", "x").ok());
    ASSERT_TRUE(PutObject(*store_, "b2", "a/1", "x").ok());
  }
  void Put(const std::vector<std::string>& keys) {
    for (const auto& k : keys) {
      Result<ObjectMeta> r = PutObject(*store_, "b", k, "v:" + k);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }
  ListPage List(std::string prefix, std::string delimiter, std::string start_after,
                size_t max_keys = 1000) {
    ListQuery q{"b", std::move(prefix), std::move(delimiter), std::move(start_after), max_keys};
    Result<ListPage> page = store_->ListObjects(q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? std::move(page).value() : ListPage{};
  }
  static std::vector<std::string> Keys(const ListPage& p) {
    std::vector<std::string> out;
    for (const auto& e : p.objects) out.push_back(e.key);
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
};

using Strings = std::vector<std::string>;

TEST_F(ListTest, Table) {
  Put({"a", "a/1", "a/2", "a/b/1", "b/1", "b0", "c", "photos/2024/x.jpg", "photos/2025/y.jpg",
       "photos/readme"});
  struct Case {
    const char* name;
    std::string prefix, delimiter, start_after;
    size_t max_keys;
    Strings objects, prefixes;
    bool truncated;
    std::string last;
  } cases[] = {
      {"all", "", "", "", 1000,
       {"a", "a/1", "a/2", "a/b/1", "b/1", "b0", "c", "photos/2024/x.jpg", "photos/2025/y.jpg", "photos/readme"},
       {}, false, "photos/readme"},
      {"prefix", "a/", "", "", 1000, {"a/1", "a/2", "a/b/1"}, {}, false, "a/b/1"},
      {"prefix no match", "zz", "", "", 1000, {}, {}, false, ""},
      {"delimiter", "", "/", "", 1000, {"a", "b0", "c"}, {"a/", "b/", "photos/"}, false, "photos/"},
      {"prefix+delimiter", "photos/", "/", "", 1000, {"photos/readme"},
       {"photos/2024/", "photos/2025/"}, false, "photos/readme"},
      {"prefix without delimiter end", "a", "/", "", 1000, {"a"}, {"a/"}, false, "a/"},
      {"truncated", "", "", "", 3, {"a", "a/1", "a/2"}, {}, true, "a/2"},
      {"exactly max_keys", "a/", "", "", 3, {"a/1", "a/2", "a/b/1"}, {}, false, "a/b/1"},
      {"prefixes count toward max_keys", "", "/", "", 2, {"a"}, {"a/"}, true, "a/"},
      {"start_after key", "", "", "a/2", 1000,
       {"a/b/1", "b/1", "b0", "c", "photos/2024/x.jpg", "photos/2025/y.jpg", "photos/readme"}, {}, false,
       "photos/readme"},
      {"start_after a common prefix skips it", "", "/", "a/", 1000, {"b0", "c"}, {"b/", "photos/"}, false,
       "photos/"},
      {"start_after inside a common prefix", "", "/", "a/1", 1000, {"b0", "c"}, {"b/", "photos/"}, false,
       "photos/"},
      {"start_after before prefix", "photos/", "", "b", 1000,
       {"photos/2024/x.jpg", "photos/2025/y.jpg", "photos/readme"}, {}, false, "photos/readme"},
      {"start_after past prefix", "a/", "", "b", 1000, {}, {}, false, ""},
      {"start_after past everything", "", "", "zzz", 1000, {}, {}, false, ""},
      {"multi-char delimiter", "", "/2", "", 1000,
       {"a", "a/1", "a/b/1", "b/1", "b0", "c", "photos/readme"}, {"a/2", "photos/2"}, false, "photos/readme"},
      {"max_keys 0", "", "", "", 0, {}, {}, false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ListPage p = List(c.prefix, c.delimiter, c.start_after, c.max_keys);
    EXPECT_EQ(Keys(p), c.objects);
    EXPECT_EQ(p.common_prefixes, c.prefixes);
    EXPECT_EQ(p.truncated, c.truncated);
    EXPECT_EQ(p.last, c.last);
  }
}

TEST_F(ListTest, EntriesCarrySizeEtagAndTime) {
  ASSERT_TRUE(PutObject(*store_, "b", "k", std::string(300, 'x'), {}, 37, "tag").ok());
  ListPage p = List("", "", "");
  ASSERT_EQ(p.objects.size(), 1u);
  EXPECT_EQ(p.objects[0].size, 300u);
  EXPECT_EQ(p.objects[0].etag, "tag");
  EXPECT_GT(p.objects[0].last_modified_ms, 0);
}

TEST_F(ListTest, BinaryOrderWithNonAsciiKeys) {
  Strings keys = {"z", "\xc3\xa9t\xc3\xa9", "\xe4\xb8\xad/1", "\xe4\xb8\xad/2", "A", "a\x7f",
                  "a\xc2\x80", "\xf0\x9f\x98\x80", "a b", "a\x01"};
  Put(keys);
  Strings want = keys;
  std::sort(want.begin(), want.end());  // std::string compares bytes as unsigned char
  EXPECT_EQ(Keys(List("", "", "")), want);
  ListPage grouped = List("", "/", "");
  EXPECT_EQ(grouped.common_prefixes, Strings{"\xe4\xb8\xad/"});
}

// Paging with last/start_after yields exactly the single-page result, for every page size.
TEST_F(ListTest, PaginationMatchesOnePage) {
  Strings keys;
  for (int d = 0; d < 4; ++d) {
    for (int i = 0; i < 5; ++i) keys.push_back("dir" + std::to_string(d) + "/f" + std::to_string(i));
    keys.push_back("file" + std::to_string(d));
  }
  Put(keys);
  for (const std::string delimiter : {"", "/"}) {
    ListPage all = List("", delimiter, "");
    for (size_t page_size = 1; page_size <= 7; ++page_size) {
      SCOPED_TRACE("delimiter '" + delimiter + "' page " + std::to_string(page_size));
      Strings objects, prefixes;
      std::string marker;
      for (int pages = 0;; ++pages) {
        ASSERT_LT(pages, 100) << "no progress";
        ListPage p = List("", delimiter, marker, page_size);
        EXPECT_LE(p.objects.size() + p.common_prefixes.size(), page_size);
        for (const auto& o : p.objects) objects.push_back(o.key);
        prefixes.insert(prefixes.end(), p.common_prefixes.begin(), p.common_prefixes.end());
        if (!p.truncated) break;
        ASSERT_FALSE(p.last.empty());
        marker = p.last;
      }
      EXPECT_EQ(objects, Keys(all));
      EXPECT_EQ(prefixes, all.common_prefixes);
    }
  }
}

// Many keys under few prefixes: a delimiter listing touches only one key per prefix.
TEST_F(ListTest, DelimiterSkipsWholePrefixes) {
  for (int d = 0; d < 3; ++d) {
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(PutObject(*store_, "b", "d" + std::to_string(d) + "/" + std::to_string(i), "").ok());
    }
  }
  ListPage p = List("", "/", "", 2);
  EXPECT_EQ(p.common_prefixes, (Strings{"d0/", "d1/"}));
  EXPECT_TRUE(p.truncated);
  p = List("", "/", p.last, 2);
  EXPECT_EQ(p.common_prefixes, (Strings{"d2/"}));
  EXPECT_FALSE(p.truncated);
}

TEST_F(ListTest, MissingBucket) {
  ListQuery q;
  q.bucket = "nope";
  EXPECT_EQ(store_->ListObjects(q).status().code(), Code::kNoSuchBucket);
}

TEST_F(ListTest, DeletedObjectsDisappear) {
  Put({"x", "y"});
  ASSERT_TRUE(store_->DeleteObject("b", "x").ok());
  EXPECT_EQ(Keys(List("", "", "")), Strings{"y"});
}

}  // namespace
}  // namespace cubby::storage
