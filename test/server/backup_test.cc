// The /_cubby/backup endpoint as a plain function (HandleBackupRequest) over a real Store, with
// BackupRunner's job replaced by a stand-in the test controls: one backup at a time (409), the
// job's states, cancellation when the runner goes, and the root-only rule.
#include "server/backup.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "s3api/auth/crypto.h"
#include "s3api/auth/signer.h"
#include "s3api/xml.h"
#include "text/encoding.h"
#include "text/uri.h"

namespace cubby::server {
namespace {

namespace fs = std::filesystem;
using storage::Code;
using storage::Status;

constexpr char kRootId[] = "AKIAROOTBACKUPTEST01";
constexpr char kRootSecret[] = "root/secret/for/backup/tests/000000000001";
constexpr char kUserId[] = "AKIAUSERBACKUPTEST01";
constexpr char kUserSecret[] = "user/secret/for/backup/tests/000000000001";

// A stand-in backup that runs until released, reporting progress; it returns kAborted when
// progress says stop (the runner is going away).
class Gate {
 public:
  Status Run(const storage::BackupProgressFn& progress) {
    std::unique_lock lock(mu_);
    for (;;) {
      lock.unlock();
      bool go_on = progress(storage::BackupProgress{10, 100, 1, 10, 0});
      lock.lock();
      started_ = true;  // after the first report, so the runner's state shows it
      cv_.notify_all();
      if (!go_on) {
        cancelled_ = true;
        return Status(Code::kAborted, "backup cancelled");
      }
      if (released_) return result_;
      cv_.wait_for(lock, std::chrono::milliseconds(5));
    }
  }
  void Release(Status result) {
    std::lock_guard lock(mu_);
    result_ = std::move(result);
    released_ = true;
  }
  void WaitStarted() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return started_; });
  }
  bool cancelled() {
    std::lock_guard lock(mu_);
    return cancelled_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool started_ = false, released_ = false, cancelled_ = false;
  Status result_ = Status::Ok();
};

class BackupEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cubby-backup-endpoint-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    storage::StoreOptions options;
    options.path = dir_ + "/data/db";
    auto opened = storage::Store::Open(options);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    storage::AccessKeyRecord root{kRootId, storage::SecretKey(kRootSecret), true, {}, "", 1,
                                  "",      storage::KeyStatus::kActive};
    ASSERT_TRUE(store_->PutAccessKey(root).ok());
    storage::AccessKeyRecord user{kUserId, storage::SecretKey(kUserSecret), false, {}, "ba-1", 1,
                                  "",      storage::KeyStatus::kActive};
    ASSERT_TRUE(store_->PutAccessKey(user).ok());
    runner_ = std::make_unique<BackupRunner>(
        store_.get(), dir_ + "/data", &logger_,
        [this](storage::Store&, const std::string&, const std::string&,
               const storage::BackupProgressFn& progress) { return gate_.Run(progress); });
  }
  void TearDown() override {
    gate_.Release(Status::Ok());
    runner_.reset();
    store_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A request signed with `id`/`secret` (empty id: anonymous).
  s3api::HttpResponse Call(const std::string& method, const std::string& query,
                           const std::string& id = kRootId,
                           const std::string& secret = kRootSecret) {
    s3api::HttpRequest request;
    request.method = method;
    request.target = "/_cubby/backup" + (query.empty() ? "" : "?" + query);
    request.request_id = "REQ1";
    request.headers.push_back({"host", "h"});
    if (!id.empty()) {
      s3api::auth::SignInput in;
      in.method = method;
      in.host = "h";
      in.path = "/_cubby/backup";
      in.query = query;
      in.payload_sha256 = text::HexEncode(s3api::auth::Sha256(""));
      in.access_key_id = id;
      in.secret_key = secret;
      in.region = "us-east-1";
      in.now = std::chrono::system_clock::now();
      for (const s3api::Header& h : s3api::auth::SignV4(in)) {
        if (h.name != "host") request.headers.push_back(h);
      }
    }
    const iam::Authorizer authorizer(store_.get());
    return HandleBackupRequest(
        request, AdminDoor{*store_, authorizer, "us-east-1", std::chrono::system_clock::now()},
        *runner_);
  }
  std::string Target(const std::string& name) {
    return "target=" + text::UriEncode(dir_ + "/" + name, text::Slash::kEncode);
  }
  static std::string Field(const s3api::HttpResponse& r, std::string_view name) {
    s3api::XmlNode root;
    if (!s3api::ParseXml(r.body, &root)) return "<not xml>";
    const s3api::XmlNode* child = root.Child(name);
    return child != nullptr ? child->text : "<missing>";
  }
  // Waits until the latest job is no longer running and returns its state document.
  s3api::HttpResponse WaitDone() {
    for (;;) {
      s3api::HttpResponse r = Call("GET", "");
      if (Field(r, "State") != "running") return r;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  std::string dir_;
  Logger logger_{LogLevel::kError, 2};
  std::unique_ptr<storage::Store> store_;
  Gate gate_;
  std::unique_ptr<BackupRunner> runner_;
};

TEST_F(BackupEndpointTest, OneBackupAtATime) {
  s3api::HttpResponse first = Call("POST", Target("one"));
  ASSERT_EQ(first.status, 202) << first.body;
  EXPECT_EQ(Field(first, "Id"), "1");
  EXPECT_EQ(Field(first, "State"), "running");
  gate_.WaitStarted();
  s3api::HttpResponse second = Call("POST", Target("two"));
  EXPECT_EQ(second.status, 409);
  EXPECT_EQ(Field(second, "Code"), "OperationAborted");
  s3api::HttpResponse running = Call("GET", "");
  EXPECT_EQ(running.status, 200);
  EXPECT_EQ(Field(running, "State"), "running");
  EXPECT_EQ(Field(running, "BytesTotal"), "100");
  gate_.Release(Status(Code::kIOError, "disk on fire"));
  s3api::HttpResponse done = WaitDone();
  EXPECT_EQ(Field(done, "State"), "failed");
  EXPECT_EQ(Field(done, "Error"), "disk on fire");
}

TEST_F(BackupEndpointTest, RootOnly) {
  struct Case {
    std::string method, id, secret;
    int status;
    std::string code;
  };
  const std::vector<Case> cases = {
      {"POST", "", "", 403, "AccessDenied"},
      {"GET", "", "", 403, "AccessDenied"},
      {"POST", kUserId, kUserSecret, 403, "AccessDenied"},
      {"GET", kUserId, kUserSecret, 403, "AccessDenied"},
      {"POST", kRootId, kUserSecret, 403, "SignatureDoesNotMatch"},
      {"POST", "AKIANOSUCHKEY0000000", kUserSecret, 403, "InvalidAccessKeyId"},
  };
  for (const Case& c : cases) {
    s3api::HttpResponse r = Call(c.method, Target("x"), c.id, c.secret);
    EXPECT_EQ(r.status, c.status) << c.method << " " << c.id;
    EXPECT_EQ(Field(r, "Code"), c.code) << c.method << " " << c.id;
  }
  EXPECT_EQ(Field(Call("GET", ""), "State"), "none");  // nothing was started
}

TEST_F(BackupEndpointTest, BadTargets) {
  fs::create_directories(dir_ + "/full");
  std::ofstream(dir_ + "/full/f") << "x";
  const std::vector<std::string> queries = {
      "",
      "target=",
      "target=relative",
      Target("full"),
      Target("data/inside"),
      Target("data"),
      Target("data/"),
      "target=%2F",
      Target("no/parent"),
  };
  for (const std::string& q : queries) {
    s3api::HttpResponse r = Call("POST", q);
    EXPECT_EQ(r.status, 400) << q;
    EXPECT_EQ(Field(r, "Code"), "InvalidArgument") << q;
  }
  s3api::HttpResponse wrong_method = Call("DELETE", "");
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(Field(wrong_method, "Code"), "MethodNotAllowed");
}

TEST_F(BackupEndpointTest, RunnerGoingAwayCancelsTheBackup) {
  ASSERT_EQ(Call("POST", Target("one")).status, 202);
  gate_.WaitStarted();
  runner_.reset();  // as at shutdown: must not wait for a release that never comes
  EXPECT_TRUE(gate_.cancelled());
}

TEST_F(BackupEndpointTest, FinishedJobAllowsTheNext) {
  ASSERT_EQ(Call("POST", Target("one")).status, 202);
  gate_.Release(Status::Ok());
  EXPECT_EQ(Field(WaitDone(), "State"), "succeeded");
  s3api::HttpResponse next = Call("POST", Target("two"));
  EXPECT_EQ(next.status, 202);
  EXPECT_EQ(Field(next, "Id"), "2");
}

}  // namespace
}  // namespace cubby::server
