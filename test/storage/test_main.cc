// storage_test's main. With --crash-child=<dir> or --crash-part-child=<dir> it instead plays a
// server that dies mid-upload (see StoreTest.CrashCleanupOnOpen and
// MultipartTest.CrashCleanupOfUnfinishedPart): a fresh process, so no RocksDB state is shared
// by fork().
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>

#include "test/storage/test_util.h"

namespace {

constexpr char kCrashFlag[] = "--crash-child=";
constexpr char kCrashPartFlag[] = "--crash-part-child=";

using cubby::storage::testing::CountBlobFiles;
using cubby::storage::testing::Pattern;
using cubby::storage::testing::SmallOptions;

// Streams 3 chunks and 10 bytes into an object writer without committing, then dies without
// running any destructor. Exit code 0 only if that data really reached a file of its own in
// the blobs folder (one more file, one more piece, every byte written).
int CrashChild(const std::string& dir) {
  using namespace cubby::storage;
  const StoreOptions options = SmallOptions(dir);
  auto opened = Store::Open(options);
  if (!opened.ok()) return 10;
  std::unique_ptr<Store> store = std::move(opened).value();
  Result<uint64_t> before = store->DebugCountDataPieces();
  const uint64_t files_before = CountBlobFiles(dir);
  auto writer = store->NewObjectWriter("b");
  if (!before.ok() || files_before == ~uint64_t{0} || !writer.ok()) return 11;
  const uint64_t size = 3 * options.chunk_size + 10;
  if (!(*writer)->Append(Pattern(size, 9)).ok()) return 12;
  Result<uint64_t> after = store->DebugCountDataPieces();
  if (!after.ok() || *after != *before + 1) return 13;
  if (CountBlobFiles(dir) != files_before + 1) return 14;
  // The parent finds the file by its size.
  std::error_code ec;
  uint64_t found = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir + "/blobs", ec)) {
    if (e.is_regular_file() && e.file_size() == size) ++found;
  }
  if (ec || found != 1) return 15;
  _exit(0);
}

// Starts an upload of b/k, commits part 1 (2 chunks: a file) and part 3 (half a chunk: one
// chunk), then streams 3 chunks and 10 bytes of part 2 and dies. Exit code 0 only if part 2's
// data really reached a file of its own.
int CrashPartChild(const std::string& dir) {
  using namespace cubby::storage;
  const StoreOptions options = SmallOptions(dir);
  auto opened = Store::Open(options);
  if (!opened.ok()) return 10;
  std::unique_ptr<Store> store = std::move(opened).value();
  auto upload = store->CreateUpload("b", "k", {});
  if (!upload.ok()) return 11;
  for (uint32_t number : {1u, 3u}) {
    auto part = store->NewPartWriter("b", "k", upload->upload_id);
    if (!part.ok()) return 12;
    const uint64_t size = number == 1 ? 2 * options.chunk_size : options.chunk_size / 2;
    if (!(*part)->Append(Pattern(size, number)).ok()) return 13;
    if (!(*part)->Commit(number, {}).ok()) return 14;
  }
  Result<uint64_t> before = store->DebugCountDataPieces();
  if (!before.ok() || *before != 2 || CountBlobFiles(dir) != 1) return 15;
  auto part2 = store->NewPartWriter("b", "k", upload->upload_id);
  if (!part2.ok()) return 16;
  if (!(*part2)->Append(Pattern(3 * options.chunk_size + 10, 2)).ok()) return 17;
  Result<uint64_t> after = store->DebugCountDataPieces();
  if (!after.ok() || *after != *before + 1) return 18;
  if (CountBlobFiles(dir) != 2) return 19;
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
