// COSI Identity service: DriverGetInfo answers the driver name.
#pragma once

#include <string>

#include "cosi.grpc.pb.h"

namespace cubby::cosi {

class IdentityService final : public ::cosi::v1alpha1::Identity::Service {
 public:
  // REQUIRES: ValidateDriverName(driver_name).ok() (checked at start by the listener).
  explicit IdentityService(std::string driver_name) : driver_name_(std::move(driver_name)) {}

  grpc::Status DriverGetInfo(grpc::ServerContext* context,
                             const ::cosi::v1alpha1::DriverGetInfoRequest* request,
                             ::cosi::v1alpha1::DriverGetInfoResponse* response) override;

 private:
  const std::string driver_name_;
};

}  // namespace cubby::cosi
