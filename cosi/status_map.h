// The one mapping from storage's domain codes to gRPC status codes for the COSI services.
#pragma once

#include <grpcpp/support/status.h>

#include "storage/status.h"

namespace cubby::cosi {

// kOk → OK; kNoSuch* → NOT_FOUND; kBucketAlreadyExists → ALREADY_EXISTS;
// kBucketNotEmpty, kPreconditionFailed → FAILED_PRECONDITION; kInvalidArgument →
// INVALID_ARGUMENT; kAborted → ABORTED; kIOError → UNAVAILABLE (retryable: the sidecar retries
// with backoff); kCorruption → DATA_LOSS. The message is storage's (it never holds a secret).
grpc::StatusCode ToGrpcCode(storage::Code code);
grpc::Status ToGrpcStatus(const storage::Status& status);

}  // namespace cubby::cosi
