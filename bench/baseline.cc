// cubby-baseline: the ceilings cubby's benchmark figures are divided by, measured on the same
// machine in the same run. One mode per invocation, each bounded in time:
//   hash                 single-core MD5 and SHA-256 (OpenSSL EVP) over a 64 MiB buffer
//   aes-gcm              single-core AES-256-GCM seal of a 64 MiB buffer in crypt/'s segment
//                        size (raw EVP, one nonce and tag per segment), then the same through
//                        crypt::SealWriter (fed 256 KiB pieces, as s3api's body) and
//                        crypt::OpenReader; best of three each. Then ops/s of unwrapping a
//                        data key and opening a 4 KiB object (an SSE-S3 small GET's extra work)
//   rocksdb              raw synced RocksDB Puts of 4 KiB, cubby's own options, N threads,
//                        plus one thread alone (its p50 is the c=1 reference)
//   loopback             one TCP stream on 127.0.0.1, 1 MiB writes
//   disk                 one 64 MiB file written and synced as the store writes a large
//                        object, best of three, each deleted before the next (a burst: see
//                        RunDiskBurst)
//   disk-sustained       such files back to back for a duration (--keep: left in place): the
//                        rate the disk sustains for new data, which bounds a large-PUT cell
//   http-server          a minimal Beast HTTP/1.1 server (thread per connection, blocking, like
//                        cubby's) answering every request with 200 and a fixed body; prints
//                        "listening port=N" and serves until SIGTERM/SIGINT
// Output: one "baseline NAME value unit [key=value...]" line per figure, for run.sh to parse.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "bench/measure.h"
#include "crypt/key.h"
#include "crypt/seal.h"
#include "storage/db_options.h"

namespace cubby::bench {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string RandomBytes(size_t n) {
  std::string s(n, '\0');
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v = rng();
    std::memcpy(&s[i], &v, 8);
  }
  return s;
}

// ---- hash
int RunHash(uint64_t bytes) {
  const std::string buf = RandomBytes(bytes);
  for (auto [name, md] : {std::pair{"md5", EVP_md5()}, std::pair{"sha256", EVP_sha256()}}) {
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int out_len = 0;
    auto start = Clock::now();
    if (!ctx || EVP_DigestInit_ex(ctx.get(), md, nullptr) != 1 ||
        EVP_DigestUpdate(ctx.get(), buf.data(), buf.size()) != 1 ||
        EVP_DigestFinal_ex(ctx.get(), out, &out_len) != 1) {
      std::fprintf(stderr, "cubby-baseline: %s digest failed\n", name);
      return 1;
    }
    double s = Seconds(Clock::now() - start);
    std::printf("baseline hash_%s %.1f MiB/s buffer=%s\n", name, bytes / 1048576.0 / s,
                FormatSize(bytes).c_str());
  }
  return 0;
}

// ---- aes-gcm: the ceiling for sealing at rest (issue 16). One core, one 64 MiB buffer cut in
// crypt::kSegmentBytes segments; `raw` is the cipher alone (the key schedule set once, then
// per segment: nonce, 24-byte AAD, encrypt, tag), `sealwriter` and `openreader` are the engine
// the server calls (buffering, AAD, sink), so their gap to `raw` is the engine's overhead.
int RunAesGcm(uint64_t bytes) {
  const std::string buf = RandomBytes(bytes);
  auto key = crypt::NewRandomKey();
  if (!key.ok()) {
    std::fprintf(stderr, "cubby-baseline: %s\n", key.status().ToString().c_str());
    return 1;
  }
  const size_t seg = crypt::kSegmentBytes;
  auto report = [&](const char* name, double best_s) {
    std::printf("baseline %s %.1f MiB/s buffer=%s segment=%s best_of=3\n", name,
                bytes / 1048576.0 / best_s, FormatSize(bytes).c_str(), FormatSize(seg).c_str());
  };
  auto best_of_3 = [](auto&& run) {
    double best = 1e30;
    for (int i = 0; i < 3; ++i) {
      auto start = Clock::now();
      if (!run()) return -1.0;
      best = std::min(best, Seconds(Clock::now() - start));
    }
    return best;
  };

  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                      EVP_CIPHER_CTX_free);
  std::string out(seg + 16, '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  const auto* in = reinterpret_cast<const unsigned char*>(buf.data());
  double raw = best_of_3([&] {
    if (!ctx ||
        EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key->reveal(), nullptr) != 1) {
      return false;
    }
    unsigned char iv[12] = {}, aad[24] = {}, tag[16];
    for (uint64_t at = 0, i = 0; at < bytes; at += seg, ++i) {
      const int n = static_cast<int>(std::min<uint64_t>(seg, bytes - at));
      std::memcpy(iv + 4, &i, 8);
      std::memcpy(aad, &i, 8);
      int len = 0;
      if (EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, nullptr, iv) != 1 ||
          EVP_EncryptUpdate(ctx.get(), nullptr, &len, aad, sizeof aad) != 1 ||
          EVP_EncryptUpdate(ctx.get(), o, &len, in + at, n) != 1 ||
          EVP_EncryptFinal_ex(ctx.get(), o + len, &len) != 1 ||
          EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, 16, tag) != 1) {
        return false;
      }
    }
    return true;
  });
  std::string sealed;
  sealed.reserve(crypt::SealedSize(bytes));
  double writer = best_of_3([&] {
    sealed.clear();
    crypt::SealWriter w(*key, "bench/key", [&](std::string_view p) {
      sealed.append(p);
      return true;
    });
    constexpr size_t kPiece = 256 << 10;  // s3api's kReceivePieceBytes
    for (uint64_t at = 0; at < bytes; at += kPiece) {
      if (!w.Update(std::string_view(buf).substr(at, kPiece)).ok()) return false;
    }
    return w.Finish().ok();
  });
  double reader = best_of_3([&] {
    uint64_t got = 0;
    crypt::OpenReader r(*key, "bench/key", crypt::PlanWhole(bytes), [&](std::string_view p) {
      got += p.size();
      return true;
    });
    constexpr size_t kPiece = 1 << 20;  // as a GET reads the stored file
    for (uint64_t at = 0; at < sealed.size(); at += kPiece) {
      if (!r.Update(std::string_view(sealed).substr(at, kPiece)).ok()) return false;
    }
    return r.Finish().ok() && got == bytes;
  });
  if (raw < 0 || writer < 0 || reader < 0) {
    std::fprintf(stderr, "cubby-baseline: AES-256-GCM failed\n");
    return 1;
  }
  report("aes_gcm_seal", raw);
  report("aes_gcm_sealwriter", writer);
  report("aes_gcm_openreader", reader);

  // What an SSE-S3 GET of a 4 KiB object adds per request: unwrap its data key, open its one
  // segment. ops/s on one core for 0.3 s (the 4 KiB GET cells are bound by requests, not bytes).
  constexpr size_t kSmall = 4096;
  auto kek = crypt::NewRandomKey();
  auto blob = kek.ok() ? crypt::WrapKey(*kek, "sse-s3", *key) : kek.status();
  auto small = crypt::SealAll(*key, "bench/key", std::string_view(buf).substr(0, kSmall));
  if (!blob.ok() || !small.ok()) {
    std::fprintf(stderr, "cubby-baseline: AES-256-GCM failed\n");
    return 1;
  }
  uint64_t ops = 0;
  auto start = Clock::now();
  while (Seconds(Clock::now() - start) < 0.3) {
    auto data_key = crypt::UnwrapKey(*kek, "sse-s3", *blob);
    if (!data_key.ok()) return 1;
    crypt::OpenReader r(*data_key, "bench/key", crypt::PlanWhole(kSmall),
                        [](std::string_view) { return true; });
    if (!r.Update(*small).ok() || !r.Finish().ok()) return 1;
    ++ops;
  }
  std::printf("baseline aes_gcm_open_4k %.0f ops/s unwrap=1 object=4KiB\n",
              ops / Seconds(Clock::now() - start));
  return 0;
}

// ---- disk: what a durable large PUT costs the disk, without HTTP or hashing. Each file is
// written the way the store writes a large object's data file (storage/store_write.cc,
// ChunkStream::WriteFile and BlobFiles::Sync): a new file, 1 MiB write(2)s, writeback started
// with sync_file_range every 8 MiB, then fdatasync and an fsync of its folder. `dir` should be
// on the data folder's filesystem.
constexpr uint64_t kDiskPiece = 1 << 20;
constexpr uint64_t kWritebackBytes = 8 << 20;  // as storage/store_write.cc's kWritebackBytes

// Creates `path` in `dir`, writes `bytes` of `piece` over and over as described above and
// syncs it. False with *error set on any failure (the file may be left behind).
bool WriteDataFile(const std::string& dir, const std::string& path, const std::string& piece,
                   uint64_t bytes, std::string* error) {
  auto fail = [&](const char* what, const std::string& name) {
    *error = std::string(what) + " " + name + ": " + std::strerror(errno);
    return false;
  };
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return fail("create", path);
  uint64_t written = 0, kicked = 0;
  while (written < bytes) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(piece.size(), bytes - written));
    ssize_t w = ::write(fd, piece.data(), n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ::close(fd);
      return fail("write", path);
    }
    written += static_cast<uint64_t>(w);
    if (written - kicked >= kWritebackBytes) {
      ::sync_file_range(fd, static_cast<off_t>(kicked), static_cast<off_t>(written - kicked),
                        SYNC_FILE_RANGE_WRITE);
      kicked = written;
    }
  }
  if (::fdatasync(fd) != 0) {
    ::close(fd);
    return fail("fdatasync", path);
  }
  ::close(fd);
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return fail("open", dir);
  int rc = ::fsync(dir_fd);
  ::close(dir_fd);
  if (rc != 0) return fail("fsync", dir);
  return true;
}

// A fresh folder under `parent` for the disk modes' files; "" (and a message) on failure.
std::string MakeScratchDir(const std::string& parent) {
  std::string tmpl = parent + "/cubby-baseline-disk.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::fprintf(stderr, "cubby-baseline: mkdtemp in %s: %s\n", parent.c_str(),
                 std::strerror(errno));
    return "";
  }
  return tmpl;
}

// disk: one file of `bytes`, best of three, each deleted before the next. On the build VM
// this is a burst, not a ceiling: its virtual disk takes writes to blocks that already hold
// data (overwritten in place, or freed moments ago and not yet given back by ext4's discard)
// at 1-3 GiB/s, but writes to new blocks at about 300 MiB/s, and the second and third tries
// land on the blocks the first one freed. A PUT cell writes new files for seconds on end:
// disk-sustained is its bound.
int RunDiskBurst(const std::string& parent, uint64_t bytes) {
  const std::string piece = RandomBytes(kDiskPiece);
  const std::string dir = MakeScratchDir(parent);
  if (dir.empty()) return 1;
  const std::string path = dir + "/burst";
  double best = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::string error;
    auto start = Clock::now();
    bool ok = WriteDataFile(dir, path, piece, bytes, &error);
    double s = Seconds(Clock::now() - start);
    ::unlink(path.c_str());
    if (!ok) {
      std::fprintf(stderr, "cubby-baseline: %s\n", error.c_str());
      ::rmdir(dir.c_str());
      return 1;
    }
    best = std::max(best, bytes / 1048576.0 / s);
  }
  ::rmdir(dir.c_str());
  std::printf("baseline disk_write_burst %.1f MiB/s file=%s synced=1 best_of=3\n", best,
              FormatSize(bytes).c_str());
  return 0;
}

// disk-sustained: files of `file_bytes` back to back, as a single-stream PUT cell writes its
// objects, for `duration_s` (a file once begun is finished) or until `max_total` bytes: long
// enough that any burst is a small part of it. The files stay until the end, as objects do;
// they are removed outside the timed window, or with `keep` left in a new folder under
// `parent` for the caller to remove later: on the build VM blocks freed moments ago are
// written several times faster than new ones, so deleting them would hand whatever writes
// next (a PUT cell) a burst.
int RunDiskSustained(const std::string& parent, uint64_t file_bytes, double duration_s,
                     uint64_t max_total, bool keep) {
  const std::string piece = RandomBytes(kDiskPiece);
  const std::string dir = MakeScratchDir(parent);
  if (dir.empty()) return 1;
  std::vector<std::string> paths;
  std::vector<double> file_seconds;
  std::string error;
  uint64_t total = 0;
  auto start = Clock::now();
  bool ok = true;
  while (ok && (paths.empty() || (Seconds(Clock::now() - start) < duration_s &&
                                  total + file_bytes <= max_total))) {
    paths.push_back(dir + "/" + std::to_string(paths.size()));
    auto file_start = Clock::now();
    ok = WriteDataFile(dir, paths.back(), piece, file_bytes, &error);
    file_seconds.push_back(Seconds(Clock::now() - file_start));
    if (ok) total += file_bytes;
  }
  double s = Seconds(Clock::now() - start);
  if (!ok || !keep) {
    for (const std::string& path : paths) ::unlink(path.c_str());
    ::rmdir(dir.c_str());
  }
  if (!ok) {
    std::fprintf(stderr, "cubby-baseline: %s\n", error.c_str());
    return 1;
  }
  // The fastest and slowest file show how much of the run was a burst.
  auto [fastest, slowest] = std::minmax_element(file_seconds.begin(), file_seconds.end());
  std::printf(
      "baseline disk_write_sustained %.1f MiB/s file=%s files=%zu seconds=%.1f "
      "file_MiB/s_max=%.0f file_MiB/s_min=%.0f%s\n",
      total / 1048576.0 / s, FormatSize(file_bytes).c_str(), paths.size(), s,
      file_bytes / 1048576.0 / *fastest, file_bytes / 1048576.0 / *slowest,
      keep ? " kept=1" : "");
  return 0;
}

// ---- rocksdb
struct PutResult {
  uint64_t ops = 0;
  double seconds = 0;
  LatencySummary latency;
  bool ok = true;
};

PutResult TimedPuts(rocksdb::DB* db, rocksdb::ColumnFamilyHandle* cf, int threads,
                    double duration_s, const std::string& value, int round) {
  std::vector<std::vector<int64_t>> samples(threads);
  std::atomic<bool> ok{true};
  std::vector<std::thread> workers;
  auto start = Clock::now();
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(duration_s));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      rocksdb::WriteOptions wo;
      wo.sync = true;
      for (uint64_t i = 0;; ++i) {
        auto now = Clock::now();
        if (now >= deadline) break;
        char key[64];
        int key_len = std::snprintf(key, sizeof key, "r%d/t%d/%llu", round, t,
                                    static_cast<unsigned long long>(i));
        rocksdb::Slice key_slice(key, static_cast<size_t>(key_len));
        rocksdb::Status s = db->Put(wo, cf, key_slice, value);
        auto end = Clock::now();
        if (!s.ok()) {
          std::fprintf(stderr, "cubby-baseline: put: %s\n", s.ToString().c_str());
          ok = false;
          return;
        }
        samples[t].push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(end - now)
                                 .count());
      }
    });
  }
  for (auto& w : workers) w.join();
  PutResult r;
  r.seconds = Seconds(Clock::now() - start);
  std::vector<int64_t> all;
  for (auto& s : samples) all.insert(all.end(), s.begin(), s.end());
  r.ops = all.size();
  r.latency = Summarize(&all);
  r.ok = ok;
  return r;
}

int RunRocksDb(int threads, double duration_s, uint64_t value_size) {
  namespace fs = std::filesystem;
  const char* tmpdir = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/cubby-baseline.XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::perror("cubby-baseline: mkdtemp");
    return 1;
  }
  storage::StoreOptions options;
  options.path = tmpl + "/db";
  storage::DbConfig config = storage::MakeDbConfig(options);
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s =
      rocksdb::DB::Open(config.db, options.path, config.column_families, &handles, &raw);
  if (!s.ok()) {
    std::fprintf(stderr, "cubby-baseline: open %s: %s\n", options.path.c_str(),
                 s.ToString().c_str());
    std::error_code ec;
    fs::remove_all(tmpl, ec);
    return 1;
  }
  std::unique_ptr<rocksdb::DB> db(raw);
  // Small objects live inline beside their metadata, in the objects family.
  rocksdb::ColumnFamilyHandle* cf = handles[storage::kObjectsCf];
  const std::string value = RandomBytes(value_size);

  PutResult one = TimedPuts(db.get(), cf, 1, duration_s, value, 0);
  PutResult many = TimedPuts(db.get(), cf, threads, duration_s, value, 1);
  for (auto* h : handles) db->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  db->Close().PermitUncheckedError();
  db.reset();
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  if (!one.ok || !many.ok) return 1;
  const std::string size = FormatSize(value_size);
  std::printf("baseline rocksdb_sync_put_c1 %.1f ops/s size=%s p50_ms=%.3f p99_ms=%.3f\n",
              one.ops / one.seconds, size.c_str(), one.latency.p50_ms, one.latency.p99_ms);
  std::printf("baseline rocksdb_sync_put_c%d %.1f ops/s size=%s p50_ms=%.3f p99_ms=%.3f\n",
              threads, many.ops / many.seconds, size.c_str(), many.latency.p50_ms,
              many.latency.p99_ms);
  return 0;
}

// ---- loopback
bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

int RunLoopback(uint64_t total) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (listener < 0 || ::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("cubby-baseline: listen");
    return 1;
  }
  std::atomic<uint64_t> received{0};
  std::thread receiver([&] {
    int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    std::vector<char> buf(1 << 20);
    uint64_t got = 0;
    for (;;) {
      ssize_t r = ::recv(fd, buf.data(), buf.size(), 0);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<uint64_t>(r);
    }
    received = got;
    ::close(fd);
  });
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("cubby-baseline: connect");
    ::close(listener);
    receiver.detach();
    return 1;
  }
  const std::string chunk = RandomBytes(1 << 20);
  auto start = Clock::now();
  bool ok = true;
  for (uint64_t sent = 0; sent < total && ok; sent += chunk.size()) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), total - sent));
    ok = WriteAll(fd, chunk.data(), n);
  }
  ::shutdown(fd, SHUT_WR);
  receiver.join();  // the stream is done when the receiver has read the last byte
  double s = Seconds(Clock::now() - start);
  ::close(fd);
  ::close(listener);
  if (!ok || received != total) {
    std::fprintf(stderr, "cubby-baseline: loopback moved %llu of %llu bytes\n",
                 static_cast<unsigned long long>(received.load()),
                 static_cast<unsigned long long>(total));
    return 1;
  }
  std::printf("baseline loopback_tcp %.1f MiB/s total=%s write=1MiB\n", total / 1048576.0 / s,
              FormatSize(total).c_str());
  return 0;
}

// ---- http-server
namespace beast = boost::beast;
namespace http = beast::http;
using boost::asio::ip::tcp;

void Serve(tcp::socket socket, std::shared_ptr<const std::string> body) {
  beast::error_code ec;
  beast::flat_buffer buffer;
  for (;;) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(1ull << 31);
    http::read(socket, buffer, parser, ec);
    if (ec) break;
    const auto& req = parser.get();
    http::response<http::string_body> res{http::status::ok, req.version()};
    res.set(http::field::content_type, "application/octet-stream");
    res.set(http::field::etag, "\"0\"");
    res.keep_alive(req.keep_alive());
    if (req.method() == http::verb::get) res.body() = *body;
    res.prepare_payload();
    http::write(socket, res, ec);
    if (ec || !res.keep_alive()) break;
  }
  socket.shutdown(tcp::socket::shutdown_send, ec);
}

int RunHttpServer(uint64_t body_size) {
  boost::asio::io_context io;
  tcp::acceptor acceptor(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
  auto body = std::make_shared<const std::string>(RandomBytes(body_size));
  std::printf("listening port=%u body=%s\n", acceptor.local_endpoint().port(),
              FormatSize(body_size).c_str());
  std::fflush(stdout);
  for (;;) {
    beast::error_code ec;
    tcp::socket socket(io);
    acceptor.accept(socket, ec);
    if (ec) continue;
    socket.set_option(tcp::no_delay(true), ec);
    std::thread(Serve, std::move(socket), body).detach();
  }
}

int Usage() {
  std::fprintf(stderr,
               "usage: cubby-baseline hash [--size 64MiB]\n"
               "       cubby-baseline aes-gcm [--size 64MiB]\n"
               "       cubby-baseline rocksdb [--threads 32] [--duration 2] [--size 4KiB]\n"
               "       cubby-baseline loopback [--size 1GiB]\n"
               "       cubby-baseline disk [--size 64MiB] [--dir D]\n"
               "       cubby-baseline disk-sustained [--size 64MiB] [--duration 10]\n"
               "                      [--max-total 4GiB] [--dir D] [--keep]\n"
               "       cubby-baseline http-server [--size 4KiB]\n"
               "--dir: where the disk modes write (default $TMPDIR, else /tmp); --keep: disk-sustained\n"
               "leaves its files in a new folder under --dir for the caller to remove\n");
  return 2;
}

int Main(int argc, char** argv) {
  if (argc < 2) return Usage();
  std::string mode = argv[1];
  uint64_t size = 0;
  int threads = 32;
  double duration = 0;  // 0: the mode's default
  uint64_t max_total = 4ull << 30;
  const char* tmpdir = std::getenv("TMPDIR");
  std::string dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  bool keep = false;
  for (int i = 2; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--keep") {
      keep = true;
      continue;
    }
    if (i + 1 >= argc) return Usage();
    std::string v = argv[++i];
    if (a == "--size") {
      if (!ParseSize(v, &size) || size == 0) return Usage();
    } else if (a == "--threads") {
      threads = std::atoi(v.c_str());
      if (threads <= 0) return Usage();
    } else if (a == "--duration") {
      duration = std::atof(v.c_str());
      if (!(duration > 0)) return Usage();
    } else if (a == "--max-total") {
      if (!ParseSize(v, &max_total) || max_total == 0) return Usage();
    } else if (a == "--dir") {
      if (v.empty()) return Usage();
      dir = v;
    } else {
      return Usage();
    }
  }
  if (mode == "hash") return RunHash(size ? size : 64ull << 20);
  if (mode == "aes-gcm") return RunAesGcm(size ? size : 64ull << 20);
  if (mode == "rocksdb") return RunRocksDb(threads, duration > 0 ? duration : 2, size ? size : 4096);
  if (mode == "loopback") return RunLoopback(size ? size : 1ull << 30);
  if (mode == "disk") return RunDiskBurst(dir, size ? size : 64ull << 20);
  if (mode == "disk-sustained") {
    return RunDiskSustained(dir, size ? size : 64ull << 20, duration > 0 ? duration : 10,
                            max_total, keep);
  }
  if (mode == "http-server") return RunHttpServer(size ? size : 4096);
  return Usage();
}

}  // namespace
}  // namespace cubby::bench

int main(int argc, char** argv) { return cubby::bench::Main(argc, argv); }
