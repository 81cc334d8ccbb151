// The S3 bucket naming rules, in one place for every way a bucket is created (S3 CreateBucket
// and the COSI driver), so a name one accepts is never refused by the other.
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html
#pragma once

#include <string_view>

#include "storage/status.h"

namespace cubby::storage {

// OK, or kInvalidArgument whose message names the rule broken: 3-63 characters of [a-z0-9.-];
// begins and ends with a letter or digit; no "..", ".-" or "-." (names must stay valid DNS labels
// for virtual-hosted requests); not formatted as an IPv4 address; none of the prefixes AWS
// reserves ("xn--", "sthree-", "amzn-s3-demo-") or suffixes ("-s3alias", "--ol-s3", ".mrap",
// "--x-s3", "--table-s3").
Status ValidateBucketName(std::string_view name);

}  // namespace cubby::storage
