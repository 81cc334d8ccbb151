// server/cosi_listener: COSI_ENDPOINT and option parsing (tables), and the socket's life:
// stale file replaced, mode, nothing else created beside it, removed on shutdown.
#include "server/cosi_listener.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cosi_fixture.h"

namespace cubby::cosi::testing {
namespace {

using storage::Code;

TEST(CosiEndpointTest, Table) {
  struct Case {
    std::string endpoint;
    std::string path;  // empty: invalid
    std::string error_part;
  };
  const std::vector<Case> cases = {
      {"unix:///var/lib/cosi/cosi.sock", "/var/lib/cosi/cosi.sock", ""},
      {"unix:///cosi.sock", "/cosi.sock", ""},
      {"", "", "empty"},
      {"tcp://127.0.0.1:9000", "", "only UNIX sockets"},
      {"/var/lib/cosi/cosi.sock", "", "only UNIX sockets"},
      {"unix:/var/lib/cosi/cosi.sock", "", "only UNIX sockets"},
      {"UNIX:///var/lib/cosi/cosi.sock", "", "only UNIX sockets"},
      {"unix://var/lib/cosi/cosi.sock", "", "absolute"},
      {"unix://relative.sock", "", "absolute"},
      {"unix://", "", "absolute"},
      {"unix:///var/lib/cosi/cosi", "", ".sock"},
      {"unix:///var/lib/cosi/cosi.socket", "", ".sock"},
      {"unix:///var/lib/cosi/.sock", "", ".sock"},
      {"unix:///var/lib/cosi/", "", ".sock"},
      {"unix:///" + std::string(120, 'a') + ".sock", "", "UNIX socket limit"},
  };
  for (const Case& c : cases) {
    storage::Result<std::string> got = server::ParseCosiEndpoint(c.endpoint);
    if (c.path.empty()) {
      ASSERT_FALSE(got.ok()) << c.endpoint;
      EXPECT_EQ(got.status().code(), Code::kInvalidArgument);
      EXPECT_NE(got.status().message().find(c.error_part), std::string::npos)
          << c.endpoint << ": " << got.status().message();
      EXPECT_EQ(got.status().message().find('\n'), std::string::npos);  // one line
    } else {
      ASSERT_TRUE(got.ok()) << c.endpoint << ": " << got.status().message();
      EXPECT_EQ(*got, c.path);
    }
  }
}

server::CosiEnvLookup EnvOf(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(CosiOptionsTest, OffWhenEndpointUnsetOrEmpty) {
  auto off = server::CosiOptionsFromEnv(EnvOf({}), "http://0.0.0.0:9000", "us-east-1");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->has_value());
  auto empty = server::CosiOptionsFromEnv(EnvOf({{"COSI_ENDPOINT", ""}}), "http://h:9000",
                                          "us-east-1");
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->has_value());
}

TEST(CosiOptionsTest, Defaults) {
  auto got = server::CosiOptionsFromEnv(
      EnvOf({{"COSI_ENDPOINT", "unix:///var/lib/cosi/cosi.sock"}}), "http://10.0.0.5:9000",
      "eu-west-1");
  ASSERT_TRUE(got.ok()) << got.status().message();
  ASSERT_TRUE(got->has_value());
  const server::CosiOptions& o = **got;
  EXPECT_EQ(o.socket_path, "/var/lib/cosi/cosi.sock");
  EXPECT_EQ(o.driver_name, "cubby.objectstorage.k8s.io");
  EXPECT_EQ(o.socket_mode, 0660u);
  EXPECT_EQ(o.public_endpoint, "http://10.0.0.5:9000");
  EXPECT_EQ(o.region, "eu-west-1");
}

TEST(CosiOptionsTest, Table) {
  struct Case {
    std::map<std::string, std::string> env;
    bool valid;
    std::string error_part;
  };
  const std::string ep = "unix:///var/lib/cosi/cosi.sock";
  const std::vector<Case> cases = {
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_DRIVER_NAME", "example.com-driver"}}, true, ""},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_DRIVER_NAME", "-bad"}}, false, "CUBBY_COSI_DRIVER_NAME"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_DRIVER_NAME", std::string(64, 'a')}},
       false,
       "CUBBY_COSI_DRIVER_NAME"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_DRIVER_NAME", "a_b"}}, false, "CUBBY_COSI_DRIVER_NAME"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "0600"}}, true, ""},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "660"}}, true, ""},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "0666"}}, false, "others"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "0777"}}, false, "others"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "0680"}}, false, "octal"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "rw-rw----"}}, false, "octal"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "10660"}}, false, "octal"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_PUBLIC_ENDPOINT", "https://s3.example.com"}}, true, ""},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_PUBLIC_ENDPOINT", "cubby:9000"}}, false, "http://"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_PUBLIC_ENDPOINT", "http://"}}, false, "host"},
      {{{"COSI_ENDPOINT", ep}, {"CUBBY_PUBLIC_ENDPOINT", "http://a b"}}, false, "spaces"},
      {{{"COSI_ENDPOINT", "tcp://0.0.0.0:1234"}}, false, "COSI_ENDPOINT"},
      {{{"COSI_ENDPOINT", "unix:///tmp/x.socket"}}, false, ".sock"},
      {{{"COSI_ENDPOINT", "unix://x.sock"}}, false, "absolute"},
  };
  for (const Case& c : cases) {
    auto got = server::CosiOptionsFromEnv(EnvOf(c.env), "http://127.0.0.1:9000", "us-east-1");
    std::string label;
    for (const auto& [k, v] : c.env) label += k + "=" + v + " ";
    ASSERT_EQ(got.ok(), c.valid) << label << (got.ok() ? "" : got.status().message());
    if (c.valid) {
      EXPECT_TRUE(got->has_value());
    } else {
      EXPECT_EQ(got.status().code(), Code::kInvalidArgument);
      EXPECT_NE(got.status().message().find(c.error_part), std::string::npos)
          << label << ": " << got.status().message();
    }
  }
  auto mode = server::CosiOptionsFromEnv(
      EnvOf({{"COSI_ENDPOINT", ep}, {"CUBBY_COSI_SOCKET_MODE", "0600"}}), "http://h:1", "r");
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ((*mode)->socket_mode, 0600u);
}

std::set<std::string> FilesIn(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

class ListenerTest : public CosiFixture {};

TEST_F(ListenerTest, SocketHasModeAndNothingElseBesideIt) {
  struct stat st {};
  ASSERT_EQ(::lstat(options_.socket_path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0660u);
  EXPECT_EQ(FilesIn(socket_dir_), std::set<std::string>{"cosi.sock"});
  // Served over it.
  v1::DriverGetInfoResponse info;
  ASSERT_TRUE(identity_->DriverGetInfo(Ctx().get(), v1::DriverGetInfoRequest(), &info).ok());
  EXPECT_TRUE(Create("after-serving", {}).ok());
  EXPECT_EQ(FilesIn(socket_dir_), std::set<std::string>{"cosi.sock"});
}

TEST_F(ListenerTest, ShutdownRemovesTheSocketAndStopsServing) {
  listener_->Shutdown();
  EXPECT_FALSE(std::filesystem::exists(options_.socket_path));
  EXPECT_TRUE(FilesIn(socket_dir_).empty());
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(500));
  v1::DriverGetInfoResponse info;
  EXPECT_FALSE(identity_->DriverGetInfo(ctx.get(), v1::DriverGetInfoRequest(), &info).ok());
  listener_->Shutdown();  // idempotent
}

TEST_F(ListenerTest, SecondListenerOnALiveSocketIsRefused) {
  auto second = server::CosiListener::Start(options_, store_.get());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("in use"), std::string::npos)
      << second.status().message();
  EXPECT_TRUE(std::filesystem::exists(options_.socket_path));  // the first one keeps it
}

TEST_F(ListenerTest, CustomModeAndDriverName) {
  listener_->Shutdown();
  server::CosiOptions options = options_;
  options.socket_mode = 0600;
  options.driver_name = "example.org-driver";
  auto listener = server::CosiListener::Start(options, store_.get());
  ASSERT_TRUE(listener.ok()) << listener.status().message();
  struct stat st {};
  ASSERT_EQ(::lstat(options.socket_path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  auto channel =
      grpc::CreateChannel("unix:" + options.socket_path, grpc::InsecureChannelCredentials());
  v1::DriverGetInfoResponse info;
  ASSERT_TRUE(v1::Identity::NewStub(channel)
                  ->DriverGetInfo(Ctx().get(), v1::DriverGetInfoRequest(), &info)
                  .ok());
  EXPECT_EQ(info.name(), "example.org-driver");
}

class StaleSocketTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    storage::StoreOptions store_options;
    store_options.path = dir_ + "/data";
    auto store = storage::Store::Open(store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    socket_dir_ = dir_ + "/cosi";
    std::filesystem::create_directory(socket_dir_);
    options_.socket_path = socket_dir_ + "/cosi.sock";
    options_.driver_name = "cubby.objectstorage.k8s.io";
    options_.public_endpoint = kEndpoint;
    options_.region = kRegion;
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string dir_, socket_dir_;
  server::CosiOptions options_;
  std::unique_ptr<storage::Store> store_;
};

// Leaves a socket file nobody listens on, as a crashed process would.
void MakeStaleSocket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(fd);
}

TEST_F(StaleSocketTest, StaleSocketIsReplaced) {
  MakeStaleSocket(options_.socket_path);
  ::chmod(options_.socket_path.c_str(), 0777);
  struct stat before {};
  ASSERT_EQ(::lstat(options_.socket_path.c_str(), &before), 0);
  auto listener = server::CosiListener::Start(options_, store_.get());
  ASSERT_TRUE(listener.ok()) << listener.status().message();
  struct stat after {};
  ASSERT_EQ(::lstat(options_.socket_path.c_str(), &after), 0);
  EXPECT_TRUE(S_ISSOCK(after.st_mode));
  EXPECT_EQ(after.st_mode & 07777, 0660u);
  EXPECT_EQ(FilesIn(socket_dir_), std::set<std::string>{"cosi.sock"});
  auto channel =
      grpc::CreateChannel("unix:" + options_.socket_path, grpc::InsecureChannelCredentials());
  v1::DriverGetInfoResponse info;
  EXPECT_TRUE(v1::Identity::NewStub(channel)
                  ->DriverGetInfo(Ctx().get(), v1::DriverGetInfoRequest(), &info)
                  .ok());
  (*listener)->Shutdown();
  EXPECT_TRUE(FilesIn(socket_dir_).empty());
}

TEST_F(StaleSocketTest, RegularFileAtThePathIsRefusedAndKept) {
  { std::ofstream(options_.socket_path) << "not a socket"; }
  auto listener = server::CosiListener::Start(options_, store_.get());
  ASSERT_FALSE(listener.ok());
  EXPECT_NE(listener.status().message().find("not a socket"), std::string::npos)
      << listener.status().message();
  EXPECT_TRUE(std::filesystem::is_regular_file(options_.socket_path));
}

TEST_F(StaleSocketTest, MissingFolderIsRefused) {
  options_.socket_path = dir_ + "/missing/cosi.sock";
  auto listener = server::CosiListener::Start(options_, store_.get());
  ASSERT_FALSE(listener.ok());
  EXPECT_NE(listener.status().message().find("folder"), std::string::npos)
      << listener.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/missing"));  // not created either
}

TEST_F(StaleSocketTest, BadOptionsAreRefusedAtStart) {
  server::CosiOptions bad = options_;
  bad.socket_path = socket_dir_ + "/cosi.socket";
  EXPECT_EQ(server::CosiListener::Start(bad, store_.get()).status().code(),
            Code::kInvalidArgument);
  bad = options_;
  bad.driver_name = "not valid!";
  EXPECT_EQ(server::CosiListener::Start(bad, store_.get()).status().code(),
            Code::kInvalidArgument);
  EXPECT_TRUE(FilesIn(socket_dir_).empty());
}

}  // namespace
}  // namespace cubby::cosi::testing
