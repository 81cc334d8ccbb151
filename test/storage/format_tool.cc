// cubby-format-tool: reads or sets a store's format version, for the upgrade tests
// (test/e2e/test_upgrade.py) and for writing fixtures. Not installed; not for operators.
//
//   cubby-format-tool get <store>       prints the version, "none" when no store is there
//   cubby-format-tool set <store> <N>   writes version N (a store of format N pretended)
//
// <store> is the store's folder (<data dir>/db). Exit 0 on success, 1 on failure, 2 on usage.
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rocksdb/db.h>

#include "storage/db_options.h"
#include "storage/format.h"
#include "storage/format_internal.h"
#include "text/ascii.h"

namespace {

int Get(const std::string& path) {
  auto version = cubby::storage::ReadFormatVersion(path);
  if (!version.ok()) {
    std::fprintf(stderr, "%s\n", version.status().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", version->has_value() ? std::to_string(**version).c_str() : "none");
  return 0;
}

// Writes the marker directly, past Store::Open, which would refuse or migrate the folder.
int Set(const std::string& path, std::string_view version) {
  uint64_t parsed = 0;
  if (!cubby::text::ParseUint64(version, &parsed)) return 2;
  cubby::storage::StoreOptions options;
  options.path = path;
  cubby::storage::DbConfig config = cubby::storage::MakeDbConfig(options);
  config.db.create_if_missing = false;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::Open(config.db, path, config.column_families, &handles, &raw);
  if (s.ok()) {
    std::unique_ptr<rocksdb::DB> db(raw);
    rocksdb::WriteOptions sync;
    sync.sync = true;
    const std::string_view key = cubby::storage::kFormatVersionSetting;
    s = db->Put(sync, handles[cubby::storage::kDefaultCf], rocksdb::Slice(key.data(), key.size()),
                std::to_string(parsed));
    for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    if (s.ok()) s = db->Close();
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "get") return Get(args[1]);
  if (args.size() == 3 && args[0] == "set") return Set(args[1], args[2]);
  std::fprintf(stderr, "usage: cubby-format-tool get <store> | set <store> <version>\n");
  return 2;
}
