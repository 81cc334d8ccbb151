// RocksDB's own diagnostic log (the LOG file in the store folder), written so that a full disk
// cannot take the process down. Private to storage/: includes rocksdb headers.
//
// RocksDB's default logger appends through a WritableFileWriter, and Debian's RocksDB 7.8 aborts
// the process when such a writer is used again after a failed append
// (WritableFileWriter::AssertFalseAndGetStatusForPrevError): once the LOG file met ENOSPC, the
// next line any background job logs killed cubby. This logger writes each line with one
// write(2) and drops the lines that do not fit.
#pragma once

#include <memory>
#include <string>

#include <rocksdb/env.h>

namespace cubby::storage {

// A logger appending to `dir`/LOG (created if missing). Once LOG exceeds `max_bytes` it is
// renamed to LOG.old (replacing the previous one) and a new LOG is started, so the two stay
// under 2 * max_bytes. Lines that cannot be written (a full disk) are dropped, never retried.
// When LOG cannot be opened at all, the logger drops every line. Thread-safe.
std::shared_ptr<rocksdb::Logger> NewEngineLog(const std::string& dir, size_t max_bytes = 8 << 20);

// A logger that drops every line (for read-only opens, which must create no file).
std::shared_ptr<rocksdb::Logger> NewSilentEngineLog();

}  // namespace cubby::storage
