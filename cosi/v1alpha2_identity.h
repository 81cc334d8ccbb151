// COSI Identity service (sigs.k8s.io.cosi.v1alpha2): DriverGetInfo answers the driver name and
// supported_protocols = [S3].
#pragma once

#include <string>

#include "cosi_v1alpha2.grpc.pb.h"

namespace cubby::cosi {

class V1alpha2IdentityService final : public ::sigs::k8s::io::cosi::v1alpha2::Identity::Service {
 public:
  // REQUIRES: ValidateDriverName(driver_name).ok() (checked at start by the listener).
  explicit V1alpha2IdentityService(std::string driver_name)
      : driver_name_(std::move(driver_name)) {}

  grpc::Status DriverGetInfo(
      grpc::ServerContext* context,
      const ::sigs::k8s::io::cosi::v1alpha2::DriverGetInfoRequest* request,
      ::sigs::k8s::io::cosi::v1alpha2::DriverGetInfoResponse* response) override;

 private:
  const std::string driver_name_;
};

}  // namespace cubby::cosi
