// The bucket sub-resources cubby keeps no configuration for (bucket_subresources.cc), through
// S3Service::Handle with a real Store in a temp folder: S3's answer for a bucket without the
// configuration, NotImplemented for each Put, NoSuchBucket, and each call's own IAM action.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test/s3api/service_fixture.h"

namespace cubby::s3api {
namespace {

using namespace test_support;  // NOLINT: the fixture

class BucketSubresourcesTest : public ServiceTest {};

struct Case {
  std::string method;
  std::string query;
  std::string operation;  // the summary's
  int status;
  std::string code;  // the error's; empty for a success
  std::string body;  // a success's exact body
};

const std::string kDecl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
const std::string kNs = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";

std::vector<Case> Cases() {
  const std::string list_end = "><IsTruncated>false</IsTruncated></";
  return {
      {"GET", "website", "GetBucketWebsite", 404, "NoSuchWebsiteConfiguration", ""},
      {"PUT", "website", "PutBucketWebsite", 501, "NotImplemented", ""},
      {"DELETE", "website", "DeleteBucketWebsite", 204, "", ""},
      {"GET", "logging", "GetBucketLogging", 200, "",
       "<BucketLoggingStatus xmlns=\"http://doc.s3.amazonaws.com/2006-03-01\">"
       "</BucketLoggingStatus>"},
      {"PUT", "logging", "PutBucketLogging", 501, "NotImplemented", ""},
      {"GET", "notification", "GetBucketNotificationConfiguration", 200, "",
       "<NotificationConfiguration" + kNs + "></NotificationConfiguration>"},
      {"PUT", "notification", "PutBucketNotificationConfiguration", 501, "NotImplemented", ""},
      {"GET", "requestPayment", "GetBucketRequestPayment", 200, "",
       "<RequestPaymentConfiguration" + kNs +
           "><Payer>BucketOwner</Payer></RequestPaymentConfiguration>"},
      {"PUT", "requestPayment", "PutBucketRequestPayment", 400, "MalformedXML", ""},
      {"GET", "accelerate", "GetBucketAccelerateConfiguration", 200, "",
       "<AccelerateConfiguration" + kNs + "></AccelerateConfiguration>"},
      {"PUT", "accelerate", "PutBucketAccelerateConfiguration", 501, "NotImplemented", ""},
      {"GET", "replication", "GetBucketReplication", 404, "ReplicationConfigurationNotFoundError",
       ""},
      {"PUT", "replication", "PutBucketReplication", 501, "NotImplemented", ""},
      {"DELETE", "replication", "DeleteBucketReplication", 204, "", ""},
      {"GET", "analytics", "ListBucketAnalyticsConfigurations", 200, "",
       "<ListBucketAnalyticsConfigurationResult" + kNs + list_end +
           "ListBucketAnalyticsConfigurationResult>"},
      {"GET", "analytics&id=a", "GetBucketAnalyticsConfiguration", 404, "NoSuchConfiguration", ""},
      {"PUT", "analytics&id=a", "PutBucketAnalyticsConfiguration", 501, "NotImplemented", ""},
      {"DELETE", "analytics&id=a", "DeleteBucketAnalyticsConfiguration", 404, "NoSuchConfiguration",
       ""},
      {"GET", "metrics", "ListBucketMetricsConfigurations", 200, "",
       "<ListMetricsConfigurationsResult" + kNs + list_end + "ListMetricsConfigurationsResult>"},
      {"GET", "metrics&id=m", "GetBucketMetricsConfiguration", 404, "NoSuchConfiguration", ""},
      {"PUT", "metrics&id=m", "PutBucketMetricsConfiguration", 501, "NotImplemented", ""},
      {"DELETE", "metrics&id=m", "DeleteBucketMetricsConfiguration", 404, "NoSuchConfiguration",
       ""},
      {"GET", "inventory", "ListBucketInventoryConfigurations", 200, "",
       "<ListInventoryConfigurationsResult" + kNs + list_end +
           "ListInventoryConfigurationsResult>"},
      {"GET", "inventory&id=i", "GetBucketInventoryConfiguration", 404, "NoSuchConfiguration", ""},
      {"PUT", "inventory&id=i", "PutBucketInventoryConfiguration", 501, "NotImplemented", ""},
      {"DELETE", "inventory&id=i", "DeleteBucketInventoryConfiguration", 404, "NoSuchConfiguration",
       ""},
      {"GET", "intelligent-tiering", "ListBucketIntelligentTieringConfigurations", 200, "",
       "<ListBucketIntelligentTieringConfigurationsOutput" + kNs + list_end +
           "ListBucketIntelligentTieringConfigurationsOutput>"},
      {"GET", "intelligent-tiering&id=t", "GetBucketIntelligentTieringConfiguration", 404,
       "NoSuchConfiguration", ""},
      {"PUT", "intelligent-tiering&id=t", "PutBucketIntelligentTieringConfiguration", 501,
       "NotImplemented", ""},
      {"DELETE", "intelligent-tiering&id=t", "DeleteBucketIntelligentTieringConfiguration", 404,
       "NoSuchConfiguration", ""},
  };
}

TEST_F(BucketSubresourcesTest, AnswersForABucketWithoutConfiguration) {
  MakeBucket("bkt");
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.method + " ?" + c.query);
    Req req;
    req.method = c.method;
    req.path = "/bkt";
    req.query = c.query;
    if (c.method == "PUT") req.body = "<Configuration/>";
    Reply r = Send(std::move(req));
    EXPECT_EQ(r.status(), c.status) << r.body;
    EXPECT_EQ(r.summary.operation, c.operation);
    if (!c.code.empty()) {
      EXPECT_EQ(r.Code(), c.code);
      EXPECT_EQ(r.summary.error, c.code);
    } else if (c.status == 200) {
      EXPECT_EQ(r.body, kDecl + c.body);
      EXPECT_EQ(r.Header("Content-Type"), "application/xml");
    } else {
      EXPECT_EQ(r.body, "");
    }
    if (c.code == "NotImplemented") {
      EXPECT_NE(r.body.find(c.operation + " is not implemented by cubby."), std::string::npos);
    }
  }
}

// PutBucketRequestPayment: BucketOwner is what every bucket has (200, nothing changes);
// Requester is NotImplemented; anything else MalformedXML.
TEST_F(BucketSubresourcesTest, PutRequestPayment) {
  MakeBucket("bkt");
  auto put = [&](std::string body) {
    Req req;
    req.method = "PUT";
    req.path = "/bkt";
    req.query = "requestPayment";
    req.body = std::move(body);
    return Send(std::move(req));
  };
  auto config = [](std::string payer) {
    return "<RequestPaymentConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
           "<Payer>" +
           payer + "</Payer></RequestPaymentConfiguration>";
  };
  Reply owner = put(config("BucketOwner"));
  EXPECT_EQ(owner.status(), 200) << owner.body;
  EXPECT_EQ(owner.summary.operation, "PutBucketRequestPayment");
  Reply requester = put(config("Requester"));
  EXPECT_EQ(requester.status(), 501);
  EXPECT_EQ(requester.Code(), "NotImplemented");
  EXPECT_EQ(put(config("Someone")).Code(), "MalformedXML");
  EXPECT_EQ(put("<RequestPaymentConfiguration/>").Code(), "MalformedXML");
  EXPECT_EQ(put("<Other><Payer>BucketOwner</Payer></Other>").Code(), "MalformedXML");
  EXPECT_EQ(put("not xml").Code(), "MalformedXML");
  EXPECT_NE(Do("GET", "/bkt", "requestPayment").body.find("<Payer>BucketOwner</Payer>"),
            std::string::npos);
}

TEST_F(BucketSubresourcesTest, MissingBucketIsNoSuchBucket) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.method + " ?" + c.query);
    Reply r = Do(c.method, "/nope", c.query);
    EXPECT_EQ(r.status(), 404);
    EXPECT_EQ(r.Code(), "NoSuchBucket");
  }
}

// Each call asks its own action: a COSI read-only key reads every configuration (the Get
// actions need read) and may change none (the Put actions are the owner's); a write-only key
// reads none; an anonymous caller, with no policy, neither.
TEST_F(BucketSubresourcesTest, EachCallAsksItsOwnAction) {
  MakeBucket("shared");
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.method + " ?" + c.query);
    const bool reads = c.method == "GET";
    Reply reader = Do(c.method, "/shared", c.query, kReaderId);
    if (reads) {
      EXPECT_EQ(reader.status(), c.status) << reader.body;
    } else {
      EXPECT_EQ(reader.Code(), "AccessDenied");
    }
    EXPECT_EQ(Do(c.method, "/shared", c.query, kWriterId).Code(), "AccessDenied");
    EXPECT_EQ(Do(c.method, "/shared", c.query, kAnonymous).Code(), "AccessDenied");
  }
}

}  // namespace
}  // namespace cubby::s3api
