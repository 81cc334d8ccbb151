#include "cosi/status_map.h"

namespace cubby::cosi {

// No default: a new storage::Code makes the compiler point here (-Wswitch).
grpc::StatusCode ToGrpcCode(storage::Code code) {
  using storage::Code;
  switch (code) {
    case Code::kOk:
      return grpc::StatusCode::OK;
    case Code::kNoSuchBucket:
    case Code::kNoSuchKey:
    case Code::kNoSuchUpload:
    case Code::kNoSuchAccessKey:
    case Code::kNoSuchEntity:
    case Code::kNoSuchVersion:
      return grpc::StatusCode::NOT_FOUND;
    case Code::kBucketAlreadyExists:
    case Code::kEntityAlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case Code::kBucketNotEmpty:
    case Code::kPreconditionFailed:
    case Code::kObjectLocked:
    case Code::kDeleteConflict:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case Code::kLimitExceeded:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case Code::kInvalidArgument:
    case Code::kInvalidPart:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case Code::kAborted:
      return grpc::StatusCode::ABORTED;
    case Code::kIOError:
      return grpc::StatusCode::UNAVAILABLE;
    case Code::kCorruption:
      return grpc::StatusCode::DATA_LOSS;
    case Code::kFormatTooNew:  // only Store::Open reports it
      return grpc::StatusCode::INTERNAL;
    case Code::kNoSpace:  // gRPC's code for "out of disk space" (grpc/doc/statuscodes.md)
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
  }
  return grpc::StatusCode::INTERNAL;  // unreachable for valid enum values
}

grpc::Status ToGrpcStatus(const storage::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(ToGrpcCode(status.code()), status.message());
}

}  // namespace cubby::cosi
