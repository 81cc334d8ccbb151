#include "storage/status.h"

namespace cubby::storage {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "OK";
    case Code::kNoSuchBucket: return "NoSuchBucket";
    case Code::kNoSuchKey: return "NoSuchKey";
    case Code::kNoSuchUpload: return "NoSuchUpload";
    case Code::kNoSuchAccessKey: return "NoSuchAccessKey";
    case Code::kBucketAlreadyExists: return "BucketAlreadyExists";
    case Code::kBucketNotEmpty: return "BucketNotEmpty";
    case Code::kPreconditionFailed: return "PreconditionFailed";
    case Code::kInvalidArgument: return "InvalidArgument";
    case Code::kInvalidPart: return "InvalidPart";
    case Code::kAborted: return "Aborted";
    case Code::kIOError: return "IOError";
    case Code::kCorruption: return "Corruption";
    case Code::kFormatTooNew: return "FormatTooNew";
    case Code::kNoSpace: return "NoSpace";
    case Code::kNoSuchEntity: return "NoSuchEntity";
    case Code::kEntityAlreadyExists: return "EntityAlreadyExists";
    case Code::kDeleteConflict: return "DeleteConflict";
    case Code::kLimitExceeded: return "LimitExceeded";
    case Code::kNoSuchVersion: return "NoSuchVersion";
    case Code::kObjectLocked: return "ObjectLocked";
  }
  return "Unknown";
}

}  // namespace cubby::storage
