// Internal to s3api: the one table of S3 operations (operations.cc). An Operation's row holds
// all that the router and the service know of it: its AWS name, the IAM action it is authorized
// as, whether it needs free space, how its query parameters are parsed and the handler that
// answers it.
#pragma once

#include <string_view>
#include <vector>

#include "iam/action.h"
#include "s3api/http.h"
#include "s3api/router.h"
#include "text/uri.h"

namespace cubby::s3api {

struct Context;

// A request's decoded query, in request order.
using Query = std::vector<text::NameValue>;

struct OperationInfo {
  Operation id;           // the row's own operation
  std::string_view name;  // the AWS action name, "ListObjectsV2" (OperationName)
  // What the service authorizes before the handler runs, as AWS's service authorization
  // reference pairs them; a versionId asks for the *Version action instead (service.cc).
  iam::Action action;
  // Stores something new, and so is refused while the store is full. Deletes and aborts do
  // not: they are how space is freed, and the reserve is kept for them.
  bool needs_space;
  // Reads the operation's query parameters into the route (router.cc); null: it has none.
  void (*parse_params)(const Query& query, Route* route);
  // Answers the request (handlers.h), once routed, authenticated and authorized.
  HttpResponse (*handler)(const Context& ctx);
};

// The row of `op`. An out-of-range value gets a row named "Unknown", authorized as
// iam::Action::kUnimplemented, whose handler answers InternalError.
const OperationInfo& Info(Operation op);

// ---- The parameter parsers the table names (router.cc). Each reads its operation's parameters
// into the route's typed fields, in the order the handlers once checked them, and records the
// first malformed one in route->param_error (RouteRequest lists the errors).
void ParseListObjects(const Query& query, Route* route);
void ParseListObjectsV2(const Query& query, Route* route);
void ParseListObjectVersions(const Query& query, Route* route);
void ParseListMultipartUploads(const Query& query, Route* route);
void ParseListParts(const Query& query, Route* route);
void ParseUploadPart(const Query& query, Route* route);  // UploadPart, UploadPartCopy
void ParseUploadId(const Query& query, Route* route);    // Complete/AbortMultipartUpload
void ParseGetObject(const Query& query, Route* route);   // GetObject, HeadObject
void ParseVersionId(const Query& query, Route* route);   // the other calls on one version

}  // namespace cubby::s3api
