#include "cosi/v1alpha2_identity.h"

namespace cubby::cosi {

namespace v2 = ::sigs::k8s::io::cosi::v1alpha2;

grpc::Status V1alpha2IdentityService::DriverGetInfo(grpc::ServerContext* context,
                                                    const v2::DriverGetInfoRequest* request,
                                                    v2::DriverGetInfoResponse* response) {
  response->set_name(driver_name_);
  response->add_supported_protocols()->set_type(v2::ObjectProtocol::S3);
  return grpc::Status::OK;
}

}  // namespace cubby::cosi
