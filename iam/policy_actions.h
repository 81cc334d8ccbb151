// The actions a policy may name: every action of Amazon S3 in the Service Authorization
// Reference, IAM's user, access key, user policy and user tag actions (what cubby's IAM front
// door serves), the KMS actions of the built-in KMS's JSON API and cubby's own admin actions
// (cubby:*, the /_cubby/ endpoints), each with the kind of resource it applies to. Parse refuses an Action
// that matches none of them, and in a bucket policy an Action that applies to none of the
// statement's resources.
//   https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html
//   https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsidentityandaccessmanagementiam.html
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace cubby::iam {

// What an action's Resource must name (the table's "Resource types" column, reduced to what a
// bucket policy can name).
enum class ActionResource {
  kBucket,  // arn:aws:s3:::bucket
  kObject,  // arn:aws:s3:::bucket/key
  kOther,   // an access point, job, Storage Lens, Access Grants or IAM resource, or only "*"
};

struct ActionInfo {
  std::string_view name;  // "s3:GetObject", as AWS spells it
  ActionResource resource;
};

// Every known action, sorted by name ignoring ASCII case.
std::span<const ActionInfo> KnownActions();

// The index in KnownActions() of `name` (compared ignoring ASCII case), or nullopt.
std::optional<size_t> FindKnownAction(std::string_view name);

}  // namespace cubby::iam
