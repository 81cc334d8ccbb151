// `cubby user create --endpoint URL --name NAME [--access-key ID --secret-key SECRET]
// [--credentials-file FILE] [--region REGION]`: creates a user on the cubby at URL through its
// IAM API (CreateUser, then CreateAccessKey), signed as root for service "iam". With
// --access-key and --secret-key (both or neither) the key gets that id and secret (cubby's own
// CreateAccessKey parameters); without them the server generates one. Prints the key id and,
// only when the server generated it, the secret, as an AWS shared-credentials profile on stdout.
// Root credentials and region as for `cubby backup` (server/backup_command.h). Exit codes: 0 done;
// 1 when the server refuses (its IAM error code and message on stderr) or cannot be reached; 2
// for a bad command line or missing credentials.
#pragma once

#include "server/config.h"

namespace cubby::server {

// argv[0] is "user".
int RunUserCommand(int argc, const char* const* argv, const EnvLookup& env);

}  // namespace cubby::server
