// A real Store in a temp folder, the real COSI listener on a UNIX socket in that folder, and
// real gRPC clients of both COSI versions (cosi.v1alpha1, sigs.k8s.io.cosi.v1alpha2) connected
// through the socket at the same time.
#pragma once

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "cosi.grpc.pb.h"
#include "cosi_v1alpha2.grpc.pb.h"
#include "server/cosi_listener.h"
#include "storage/store.h"

namespace cubby::cosi::testing {

namespace v1 = ::cosi::v1alpha1;
namespace v2 = ::sigs::k8s::io::cosi::v1alpha2;

inline constexpr char kEndpoint[] = "http://cubby.test.svc:9000";
inline constexpr char kRegion[] = "test-region-1";

// A fresh folder under /tmp (short, so socket paths stay under the 108-byte limit).
inline std::string MakeTempDir() {
  std::string tmpl = "/tmp/cosi-test-XXXXXX";
  char* made = ::mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr);
  return tmpl;
}

inline std::unique_ptr<grpc::ClientContext> Ctx() {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return ctx;
}

class CosiFixture : public ::testing::Test {
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
    options_.driver_name = std::string(server::kDefaultCosiDriverName);
    options_.public_endpoint = kEndpoint;
    options_.region = kRegion;
    StartListener();
  }

  // Starts the listener with options_ and connects the clients of both versions.
  void StartListener() {
    auto listener = server::CosiListener::Start(options_, store_.get());
    ASSERT_TRUE(listener.ok()) << listener.status().ToString();
    listener_ = std::move(listener).value();
    channel_ = grpc::CreateChannel("unix:" + options_.socket_path,
                                   grpc::InsecureChannelCredentials());
    provisioner_ = v1::Provisioner::NewStub(channel_);
    identity_ = v1::Identity::NewStub(channel_);
    provisioner2_ = v2::Provisioner::NewStub(channel_);
    identity2_ = v2::Identity::NewStub(channel_);
  }

  void StopListener() {
    provisioner_.reset();
    identity_.reset();
    provisioner2_.reset();
    identity2_.reset();
    channel_.reset();
    if (listener_) listener_->Shutdown();
    listener_.reset();
  }

  // A process restart: listener and store closed, the store reopened from its folder, the
  // listener started again with options_ (which a test may have changed).
  void Restart() {
    StopListener();
    store_.reset();
    storage::StoreOptions store_options;
    store_options.path = dir_ + "/data";
    auto store = storage::Store::Open(store_options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    StartListener();
  }

  void TearDown() override {
    StopListener();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  grpc::Status Create(const std::string& name, const std::map<std::string, std::string>& params,
                      v1::DriverCreateBucketResponse* response = nullptr) {
    v1::DriverCreateBucketRequest request;
    request.set_name(name);
    for (const auto& [k, v] : params) (*request.mutable_parameters())[k] = v;
    v1::DriverCreateBucketResponse ignored;
    return provisioner_->DriverCreateBucket(Ctx().get(), request, response ? response : &ignored);
  }

  grpc::Status Delete(const std::string& bucket_id,
                      const std::map<std::string, std::string>& context = {}) {
    v1::DriverDeleteBucketRequest request;
    request.set_bucket_id(bucket_id);
    for (const auto& [k, v] : context) (*request.mutable_delete_context())[k] = v;
    v1::DriverDeleteBucketResponse response;
    return provisioner_->DriverDeleteBucket(Ctx().get(), request, &response);
  }

  grpc::Status Grant(const std::string& bucket_id, const std::string& name,
                     const std::map<std::string, std::string>& params = {},
                     v1::DriverGrantBucketAccessResponse* response = nullptr,
                     v1::AuthenticationType type = v1::Key) {
    v1::DriverGrantBucketAccessRequest request;
    request.set_bucket_id(bucket_id);
    request.set_name(name);
    request.set_authentication_type(type);
    for (const auto& [k, v] : params) (*request.mutable_parameters())[k] = v;
    v1::DriverGrantBucketAccessResponse ignored;
    return provisioner_->DriverGrantBucketAccess(Ctx().get(), request,
                                                 response ? response : &ignored);
  }

  grpc::Status Revoke(const std::string& bucket_id, const std::string& account_id) {
    v1::DriverRevokeBucketAccessRequest request;
    request.set_bucket_id(bucket_id);
    request.set_account_id(account_id);
    v1::DriverRevokeBucketAccessResponse response;
    return provisioner_->DriverRevokeBucketAccess(Ctx().get(), request, &response);
  }

  // Stores an object directly (as an S3 PUT would).
  void PutObject(const std::string& bucket, const std::string& key, const std::string& data) {
    auto writer = store_->NewObjectWriter(bucket);
    ASSERT_TRUE(writer.ok()) << writer.status().ToString();
    ASSERT_TRUE((*writer)->Append(data).ok());
    auto meta = (*writer)->Commit(key, storage::ObjectMeta{});
    ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  }

  std::string dir_;
  std::string socket_dir_;
  server::CosiOptions options_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<server::CosiListener> listener_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::Provisioner::Stub> provisioner_;
  std::unique_ptr<v1::Identity::Stub> identity_;
  std::unique_ptr<v2::Provisioner::Stub> provisioner2_;
  std::unique_ptr<v2::Identity::Stub> identity2_;
};

}  // namespace cubby::cosi::testing
