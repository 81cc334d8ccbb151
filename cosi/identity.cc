#include "cosi/identity.h"

namespace cubby::cosi {

grpc::Status IdentityService::DriverGetInfo(grpc::ServerContext* context,
                                            const ::cosi::v1alpha1::DriverGetInfoRequest* request,
                                            ::cosi::v1alpha1::DriverGetInfoResponse* response) {
  response->set_name(driver_name_);
  return grpc::Status::OK;
}

}  // namespace cubby::cosi
