// The /_cubby/acl-audit endpoint: object ACLs that a public bucket's grants reached
// (iam/acl_audit.h says which, and why they matter after the upgrade that made objects without
// an ACL of their own private).
//
//   GET  /_cubby/acl-audit[?bucket=NAME]         the report of one bucket, or of every bucket
//   POST /_cubby/acl-audit?reset[&bucket=NAME]   makes each `copied` version private (its stored
//                                                ACL removed), then answers the report
// The report: {"buckets":[<bucket>, ...]} by bucket name, where <bucket> is
//   {"bucket":"NAME","public_bucket":true|false,"versions":N,
//    "copied":[{"key":"K","version_id":"V"},...],
//    "implicit_count":M,"implicit":[{"key":"K","version_id":"V"},... at most 1000],"reset":R}
// ("null" names a null version; `reset` counts the versions a POST made private).
//
// Every call needs a signed request whose caller may call cubby:GetAclAudit (GET) or
// cubby:ResetObjectAcls (POST) on the bucket's ARN, or "*" without a bucket (Admit: root's keys,
// or a user's policy). Errors are JSON (AdminError): 403 AccessDenied (anonymous or not
// allowed) or the authentication error, 404
// NoSuchBucket, 400 InvalidArgument (a POST without `reset`), 405 MethodNotAllowed (with
// Allow), 500 InternalError. A reset is one Store::UpdateObjectAccess per version, each durable
// on return.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "iam/acl_audit.h"
#include "s3api/http.h"
#include "server/admin.h"
#include "storage/store.h"

namespace cubby::server {

// The <bucket> document of the file comment.
std::string AclAuditJson(const iam::BucketAclAudit& audit);

// The endpoint as a plain function of the request.
s3api::HttpResponse HandleAclAuditRequest(const s3api::HttpRequest& request,
                                          const AdminDoor& door);

}  // namespace cubby::server
