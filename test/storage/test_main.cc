// storage_test's main. With --crash-child=<dir> it instead plays a server that dies mid-upload
// (see StoreCrash in store_test.cc): a fresh process, so no RocksDB state is shared by fork().
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "test/storage/test_util.h"

namespace {

constexpr char kCrashFlag[] = "--crash-child=";

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

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], kCrashFlag, sizeof(kCrashFlag) - 1) == 0) {
      _exit(CrashChild(argv[i] + sizeof(kCrashFlag) - 1));
    }
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
