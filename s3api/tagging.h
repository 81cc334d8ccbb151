// Object and bucket tags: S3's limits, the Tagging XML and the x-amz-tagging header, as pure
// functions (the handlers are in tagging.cc, declared in handlers.h).
//   https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-tagging.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectTagging.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketTagging.html
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "s3api/acl_xml.h"  // XmlBodyError

namespace cubby::s3api {

using TagSet = std::vector<std::pair<std::string, std::string>>;  // key, value, as given

// What the tags belong to: the limit on their number differs.
enum class TagTarget { kObject, kBucket };
inline constexpr size_t kMaxObjectTags = 10;
inline constexpr size_t kMaxBucketTags = 50;
// In Unicode characters (code points), not bytes.
inline constexpr size_t kMaxTagKeyChars = 128;
inline constexpr size_t kMaxTagValueChars = 256;

// S3's rules for a tag set, in the order S3 checks them:
//  - more than kMaxObjectTags (kMaxBucketTags): BadRequest "Object tags cannot be greater than
//    10" ("Bucket tag count cannot be greater than 50");
//  - a key empty, longer than 128 characters or not UTF-8: InvalidTag "The TagKey you have
//    provided is invalid"; a value longer than 256 characters or not UTF-8: InvalidTag "The
//    TagValue you have provided is invalid";
//  - a key starting with "aws:" (any case): InvalidTag "System tags cannot be added/updated
//    by requester";
//  - a key given twice: InvalidTag "Cannot provide multiple Tags with the same key".
XmlBodyError ValidateTags(const TagSet& tags, TagTarget target);

// <Tagging><TagSet><Tag><Key/><Value/></Tag>...</TagSet></Tagging> (PutObjectTagging,
// PutBucketTagging), then ValidateTags. MalformedXML for anything else: another root, a missing
// TagSet, a Tag without Key or Value, an unknown or repeated element. An empty TagSet is
// allowed (no tags).
XmlBodyError ParseTagging(std::string_view body, TagTarget target, TagSet* out);

// The Tagging document GetObjectTagging and GetBucketTagging answer (an empty TagSet for none).
std::string TaggingXml(const TagSet& tags);

// The x-amz-tagging header of PutObject, CreateMultipartUpload and CopyObject: URL-query
// encoded ("k1=v1&k2=v2", '+' a space; a pair without '=' has an empty value), then
// ValidateTags for an object. A malformed escape or a key given twice: InvalidArgument "The
// header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters
// without tag name duplicates.". An empty value: no tags.
XmlBodyError ParseTaggingHeader(std::string_view value, TagSet* out);
inline constexpr std::string_view kAmzTagging = "x-amz-tagging";
inline constexpr std::string_view kAmzTaggingDirective = "x-amz-tagging-directive";
inline constexpr std::string_view kAmzTaggingCount = "x-amz-tagging-count";

}  // namespace cubby::s3api
