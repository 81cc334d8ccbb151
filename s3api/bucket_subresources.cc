// The bucket sub-resources cubby keeps no configuration for: website, logging, notification,
// requestPayment, accelerate, replication, and the analytics, metrics, inventory and
// intelligent-tiering configurations. Tools read them when they inspect a bucket, so each Get
// (and List) answers exactly what S3 answers for a bucket that has no such configuration; each
// Put is refused with NotImplemented (naming the operation), and each Delete answers what S3
// answers when nothing is set. The router gives every call its own operation, and the service
// asks its own IAM action before this runs; a missing bucket is NoSuchBucket.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketWebsite.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketLogging.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketNotificationConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketRequestPayment.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketAccelerateConfiguration.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketReplication.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBucketAnalyticsConfigurations.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBucketMetricsConfigurations.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBucketInventoryConfigurations.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListBucketIntelligentTieringConfigurations.html
#include <string>
#include <string_view>

#include "s3api/handlers.h"
#include "s3api/xml.h"

namespace cubby::s3api {

namespace {

enum class Answer {
  kEmptyDocument,   // 200 with `document` as the root element, holding `content`
  kError,           // `error`
  kNoContent,       // 204
  kNotImplemented,  // 501 NotImplemented naming the operation
  // PutBucketRequestPayment: BucketOwner (what every bucket has) is a 200 that changes
  // nothing; Requester is NotImplemented.
  kPayer,
};

struct Row {
  Operation op;
  Answer answer;
  std::string_view document = {};  // kEmptyDocument: the root element
  std::string_view xmlns = kS3Namespace;
  std::string_view content = {};  // kEmptyDocument: the text of one child element, as XML
  ErrorCode error = ErrorCode::kNone;
};

// GetBucketLogging's root carries the namespace S3 has always answered it with.
constexpr std::string_view kLoggingNamespace = "http://doc.s3.amazonaws.com/2006-03-01";

constexpr Row kRows[] = {
    {Operation::kGetBucketWebsite,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchWebsiteConfiguration},
    {Operation::kPutBucketWebsite, Answer::kNotImplemented},
    {Operation::kDeleteBucketWebsite, Answer::kNoContent},
    {Operation::kGetBucketLogging, Answer::kEmptyDocument, "BucketLoggingStatus",
     kLoggingNamespace},
    {Operation::kPutBucketLogging, Answer::kNotImplemented},
    {Operation::kGetBucketNotificationConfiguration, Answer::kEmptyDocument,
     "NotificationConfiguration"},
    {Operation::kPutBucketNotificationConfiguration, Answer::kNotImplemented},
    {Operation::kGetBucketRequestPayment, Answer::kEmptyDocument, "RequestPaymentConfiguration",
     kS3Namespace, "Payer"},
    {Operation::kPutBucketRequestPayment, Answer::kPayer},
    {Operation::kGetBucketAccelerateConfiguration, Answer::kEmptyDocument,
     "AccelerateConfiguration"},
    {Operation::kPutBucketAccelerateConfiguration, Answer::kNotImplemented},
    {Operation::kGetBucketReplication,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kReplicationConfigurationNotFoundError},
    {Operation::kPutBucketReplication, Answer::kNotImplemented},
    {Operation::kDeleteBucketReplication, Answer::kNoContent},
    {Operation::kListBucketAnalyticsConfigurations, Answer::kEmptyDocument,
     "ListBucketAnalyticsConfigurationResult", kS3Namespace, "IsTruncated"},
    {Operation::kGetBucketAnalyticsConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kPutBucketAnalyticsConfiguration, Answer::kNotImplemented},
    {Operation::kDeleteBucketAnalyticsConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kListBucketMetricsConfigurations, Answer::kEmptyDocument,
     "ListMetricsConfigurationsResult", kS3Namespace, "IsTruncated"},
    {Operation::kGetBucketMetricsConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kPutBucketMetricsConfiguration, Answer::kNotImplemented},
    {Operation::kDeleteBucketMetricsConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kListBucketInventoryConfigurations, Answer::kEmptyDocument,
     "ListInventoryConfigurationsResult", kS3Namespace, "IsTruncated"},
    {Operation::kGetBucketInventoryConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kPutBucketInventoryConfiguration, Answer::kNotImplemented},
    {Operation::kDeleteBucketInventoryConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kListBucketIntelligentTieringConfigurations, Answer::kEmptyDocument,
     "ListBucketIntelligentTieringConfigurationsOutput", kS3Namespace, "IsTruncated"},
    {Operation::kGetBucketIntelligentTieringConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
    {Operation::kPutBucketIntelligentTieringConfiguration, Answer::kNotImplemented},
    {Operation::kDeleteBucketIntelligentTieringConfiguration,
     Answer::kError,
     {},
     {},
     {},
     ErrorCode::kNoSuchConfiguration},
};

// PutBucketRequestPayment's body: the bucket owner pays, as every cubby bucket has it (200), or
// NotImplemented (Requester); MalformedXML without a Payer of either value.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketRequestPayment.html
HttpResponse PutPayer(const Context& ctx) {
  std::string body;
  if (ErrorCode e = ReadSmallBody(ctx, &body); e != ErrorCode::kNone) return ErrorResponse(ctx, e);
  XmlNode root;
  const XmlNode* payer = nullptr;
  if (ParseXml(body, &root) && root.name == "RequestPaymentConfiguration") {
    payer = root.Child("Payer");
  }
  if (payer == nullptr || (payer->text != "BucketOwner" && payer->text != "Requester")) {
    return ErrorResponse(ctx, ErrorCode::kMalformedXML);
  }
  if (payer->text == "Requester") {
    return ErrorResponse(ctx, ErrorCode::kNotImplemented,
                         "Requester Pays is not implemented by cubby.");
  }
  return HttpResponse{};
}

// The one child element's value: RequestPayment's payer is the bucket owner; a list is whole.
std::string_view ChildValue(std::string_view child) {
  return child == "Payer" ? "BucketOwner" : "false";
}

}  // namespace

HttpResponse UnconfiguredBucketSubresource(const Context& ctx) {
  const Row* row = nullptr;
  for (const Row& r : kRows) {
    if (r.op == ctx.route.op) row = &r;
  }
  if (row == nullptr) return ErrorResponse(ctx, ErrorCode::kInternalError);
  storage::Result<storage::BucketRecord> bucket = ctx.store->GetBucket(ctx.route.bucket);
  if (!bucket.ok()) return StorageError(ctx, bucket.status());
  switch (row->answer) {
    case Answer::kEmptyDocument: {
      XmlWriter w;
      w.Open(row->document, row->xmlns);
      if (!row->content.empty()) w.Element(row->content, ChildValue(row->content));
      return XmlResponse(std::move(w).Finish());
    }
    case Answer::kError:
      return ErrorResponse(ctx, row->error);
    case Answer::kNoContent: {
      HttpResponse r;
      r.status = 204;
      return r;
    }
    case Answer::kPayer:
      return PutPayer(ctx);
    case Answer::kNotImplemented:
      return ErrorResponse(
          ctx, ErrorCode::kNotImplemented,
          std::string(OperationName(ctx.route.op)) + " is not implemented by cubby.");
  }
  return ErrorResponse(ctx, ErrorCode::kInternalError);
}

}  // namespace cubby::s3api
