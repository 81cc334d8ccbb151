#include "crypt/status.h"

namespace cubby::crypt {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kInvalidArgument:
      return "InvalidArgument";
    case Code::kAuthFailed:
      return "AuthFailed";
    case Code::kWrongKey:
      return "WrongKey";
    case Code::kBadFormat:
      return "BadFormat";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kBadPermissions:
      return "BadPermissions";
    case Code::kIOError:
      return "IOError";
    case Code::kSinkFailed:
      return "SinkFailed";
    case Code::kInternal:
      return "Internal";
  }
  return "Unknown";
}

}  // namespace cubby::crypt
