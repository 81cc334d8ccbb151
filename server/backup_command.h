// `cubby backup --endpoint URL --to DIR [--credentials-file FILE] [--region REGION]`: asks the
// cubby at URL to back itself up into DIR (a path on the server's filesystem) through the
// admin API (POST /_cubby/backup, signed with the root key), then follows the job, printing a
// progress line to stderr about once a second while files are copied. The root key comes from
// --credentials-file (an AWS shared-credentials file such as <data dir>/root-credentials) or
// else AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY; the region from --region, AWS_REGION,
// AWS_DEFAULT_REGION, else us-east-1. Exit codes: 0 once the backup is complete; 1 when the
// server refuses it, it fails, or the server cannot be reached; 2 for a bad command line or
// missing credentials. Messages go to stderr, "cubby backup: ..." for errors.
#pragma once

#include "server/config.h"

namespace cubby::server {

// argv[0] is "backup".
int RunBackupCommand(int argc, const char* const* argv, const EnvLookup& env);

}  // namespace cubby::server
