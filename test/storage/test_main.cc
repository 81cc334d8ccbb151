// storage_test's main. With --crash-child=<dir> it instead plays a server that dies mid-upload
// (see StoreCrash in store_test.cc): a fresh process, so no RocksDB state is shared by fork().
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "test/storage/test_util.h"

namespace {

constexpr char kCrashFlag[] = "--crash-child=";
constexpr char kCrashPartFlag[] = "--crash-part-child=";

// Appends three full chunks and part of a fourth without committing, then dies without running
// any destructor. Exit code 0 only if the chunks really reached the store.
int CrashChild(const std::string& dir) {
  using namespace cubby::storage;
  auto opened = Store::Open(cubby::storage::testing::SmallOptions(dir));
  if (!opened.ok()) return 10;
  std::unique_ptr<Store> store = std::move(opened).value();
  Result<uint64_t> before = store->DebugCountDataChunks();
  auto writer = store->NewObjectWriter("b");
  if (!before.ok() || !writer.ok()) return 11;
  const uint32_t chunk = cubby::storage::testing::SmallOptions(dir).chunk_size;
  if (!(*writer)->Append(cubby::storage::testing::Pattern(3 * chunk + 10, 9)).ok()) return 12;
  Result<uint64_t> after = store->DebugCountDataChunks();
  if (!after.ok() || *after != *before + 3) return 13;
  _exit(0);
}

// Starts an upload of b/k, commits part 1 (two chunks), then streams three chunks of part 2 and
// dies. Exit code 0 only if those chunks really reached the store.
int CrashPartChild(const std::string& dir) {
  using namespace cubby::storage;
  const StoreOptions options = cubby::storage::testing::SmallOptions(dir);
  auto opened = Store::Open(options);
  if (!opened.ok()) return 10;
  std::unique_ptr<Store> store = std::move(opened).value();
  auto upload = store->CreateUpload("b", "k", {});
  if (!upload.ok()) return 11;
  auto part1 = store->NewPartWriter("b", "k", upload->upload_id);
  if (!part1.ok()) return 12;
  if (!(*part1)->Append(cubby::storage::testing::Pattern(2 * options.chunk_size, 1)).ok()) return 13;
  if (!(*part1)->Commit(1, {}).ok()) return 14;
  Result<uint64_t> before = store->DebugCountDataChunks();
  auto part2 = store->NewPartWriter("b", "k", upload->upload_id);
  if (!before.ok() || *before != 2 || !part2.ok()) return 15;
  if (!(*part2)->Append(cubby::storage::testing::Pattern(3 * options.chunk_size + 10, 2)).ok()) {
    return 16;
  }
  Result<uint64_t> after = store->DebugCountDataChunks();
  if (!after.ok() || *after != *before + 3) return 17;
  _exit(0);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kCrashFlag, sizeof(kCrashFlag) - 1) == 0) {
      _exit(CrashChild(argv[i] + sizeof(kCrashFlag) - 1));
    }
    if (std::strncmp(argv[i], kCrashPartFlag, sizeof(kCrashPartFlag) - 1) == 0) {
      _exit(CrashPartChild(argv[i] + sizeof(kCrashPartFlag) - 1));
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
