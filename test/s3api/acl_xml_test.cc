#include "s3api/acl_xml.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "s3api/xml.h"

namespace cubby::s3api {
namespace {

using storage::AclGrant;
using storage::AclPermission;
using storage::AclRecord;
using storage::GranteeType;
using storage::ObjectOwnership;
using storage::PublicAccessBlock;

const std::string kAlice(64, 'a');
const std::string kBob(64, 'b');
const std::string kCarol(64, 'c');

AclGrant User(const std::string& id, AclPermission p) {
  return {GranteeType::kCanonicalUser, id, p};
}
AclGrant Group(std::string_view uri, AclPermission p) {
  return {GranteeType::kGroup, std::string(uri), p};
}

// Alice and Bob exist (Carol does not); alice@example.com is Alice's address.
iam::GranteeResolver Resolver() {
  iam::GranteeResolver r;
  r.id_by_email = [](std::string_view email) -> std::optional<std::string> {
    if (email == "alice@example.com") return kAlice;
    return std::nullopt;
  };
  r.id_exists = [](std::string_view id) { return id == kAlice || id == kBob; };
  return r;
}

std::optional<std::string> Names(std::string_view id) {
  if (id == kAlice) return "alice";
  if (id == kBob) return "bob & co";
  return std::nullopt;
}

TEST(AclXmlTest, FromAclErrorEveryCode) {
  struct Case {
    iam::AclError error;
    ErrorCode code;
  };
  for (const Case& c : {Case{iam::AclError::kOk, ErrorCode::kNone},
                        Case{iam::AclError::kInvalidArgument, ErrorCode::kInvalidArgument},
                        Case{iam::AclError::kInvalidRequest, ErrorCode::kInvalidRequest},
                        Case{iam::AclError::kUnresolvableGrantByEmailAddress,
                             ErrorCode::kUnresolvableGrantByEmailAddress},
                        Case{iam::AclError::kAccessControlListNotSupported,
                             ErrorCode::kAccessControlListNotSupported},
                        Case{iam::AclError::kInvalidBucketAclWithObjectOwnership,
                             ErrorCode::kInvalidBucketAclWithObjectOwnership},
                        Case{iam::AclError::kAccessDenied, ErrorCode::kAccessDenied}}) {
    EXPECT_EQ(FromAclError(c.error), c.code) << static_cast<int>(c.error);
  }
  XmlBodyError e = FromAclStatus(iam::AclStatus(iam::AclError::kInvalidRequest, "both"));
  EXPECT_EQ(e.code, ErrorCode::kInvalidRequest);
  EXPECT_EQ(e.message, "both");
  EXPECT_TRUE(FromAclStatus(iam::AclStatus()).ok());
}

TEST(AclXmlTest, RendersAccessControlPolicy) {
  const AclRecord acl{kBob,
                      {User(kBob, AclPermission::kFullControl), User(kCarol, AclPermission::kRead),
                       Group(iam::kAllUsersGroup, AclPermission::kReadAcp)}};
  const std::string xsi =
      "<Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=";
  EXPECT_EQ(AccessControlPolicyXml(acl, Names),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<AccessControlPolicy xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            "<Owner><ID>" +
                kBob +
                "</ID><DisplayName>bob &amp; co</DisplayName></Owner>"
                "<AccessControlList>"
                "<Grant>" +
                xsi + "\"CanonicalUser\"><ID>" + kBob +
                "</ID><DisplayName>bob &amp; co</DisplayName></Grantee>"
                "<Permission>FULL_CONTROL</Permission></Grant>"
                // Carol has no display name: none is written.
                "<Grant>" +
                xsi + "\"CanonicalUser\"><ID>" + kCarol +
                "</ID></Grantee>"
                "<Permission>READ</Permission></Grant>"
                "<Grant>" +
                xsi +
                "\"Group\"><URI>http://acs.amazonaws.com/groups/global/AllUsers"
                "</URI></Grantee><Permission>READ_ACP</Permission></Grant>"
                "</AccessControlList></AccessControlPolicy>");
  // No lookup at all: no DisplayName anywhere; no grants: an empty list.
  EXPECT_EQ(AccessControlPolicyXml({kAlice, {}}, nullptr),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<AccessControlPolicy xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            "<Owner><ID>" +
                kAlice +
                "</ID></Owner><AccessControlList></AccessControlList>"
                "</AccessControlPolicy>");
}

// What GetBucketAcl renders, PutBucketAcl reads back as the same record.
TEST(AclXmlTest, AccessControlPolicyRoundTrips) {
  const std::vector<AclRecord> records = {
      {kAlice, {}},
      iam::ExpandCanned(iam::CannedAcl::kPrivate, kAlice, kAlice, true),
      iam::ExpandCanned(iam::CannedAcl::kPublicReadWrite, kAlice, kAlice, true),
      iam::ExpandCanned(iam::CannedAcl::kAuthenticatedRead, kAlice, kBob, false),
      iam::ExpandCanned(iam::CannedAcl::kBucketOwnerFullControl, kAlice, kBob, false),
      iam::ExpandCanned(iam::CannedAcl::kLogDeliveryWrite, kBob, kBob, true),
      {kAlice,
       {User(kBob, AclPermission::kRead), User(kBob, AclPermission::kWrite),
        User(kBob, AclPermission::kReadAcp), User(kBob, AclPermission::kWriteAcp),
        User(kAlice, AclPermission::kFullControl), User(kAlice, AclPermission::kFullControl)}},
  };
  for (const AclRecord& record : records) {
    for (const DisplayNameLookup& names : {DisplayNameLookup(Names), DisplayNameLookup()}) {
      const std::string doc = AccessControlPolicyXml(record, names);
      SCOPED_TRACE(doc);
      AclRecord parsed{"sentinel", {}};
      XmlBodyError e = ParseAccessControlPolicy(doc, record.owner_id, Resolver(), &parsed);
      ASSERT_TRUE(e.ok()) << static_cast<int>(e.code) << " " << e.message;
      EXPECT_EQ(parsed, record);
    }
  }
}

// A body as clients send it: every grantee type, namespace prefixes, pretty-printed.
TEST(AclXmlTest, ParsesClientBodies) {
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<AccessControlPolicy xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n"
      "  <Owner><ID>" +
      kAlice +
      "</ID><DisplayName>whatever</DisplayName></Owner>\n"
      "  <AccessControlList>\n"
      "    <Grant>\n"
      "      <Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
      "xsi:type=\"CanonicalUser\"><ID> " +
      kBob +
      "\n</ID><DisplayName>x</DisplayName></Grantee>\n"
      "      <Permission>WRITE</Permission>\n"
      "    </Grant>\n"
      "    <Grant>\n"
      "      <Grantee xmlns:i=\"http://www.w3.org/2001/XMLSchema-instance\" "
      "i:type=\"AmazonCustomerByEmail\"><EmailAddress>alice@example.com</EmailAddress></Grantee>\n"
      "      <Permission> READ_ACP </Permission>\n"
      "    </Grant>\n"
      "    <Grant><Grantee xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
      "xsi:type=\"Group\"><URI>http://acs.amazonaws.com/groups/s3/LogDelivery</URI></Grantee>"
      "<Permission>FULL_CONTROL</Permission></Grant>\n"
      "  </AccessControlList>\n"
      "</AccessControlPolicy>\n";
  AclRecord parsed;
  XmlBodyError e = ParseAccessControlPolicy(body, kAlice, Resolver(), &parsed);
  ASSERT_TRUE(e.ok()) << static_cast<int>(e.code);
  EXPECT_EQ(parsed,
            (AclRecord{kAlice,
                       {User(kBob, AclPermission::kWrite), User(kAlice, AclPermission::kReadAcp),
                        Group(iam::kLogDeliveryGroup, AclPermission::kFullControl)}}));
  // Without an id check every id is accepted.
  iam::GranteeResolver lenient;
  const std::string unknown =
      "<AccessControlPolicy><Owner><ID>o</ID></Owner><AccessControlList><Grant><Grantee "
      "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"CanonicalUser\">"
      "<ID>someone</ID></Grantee><Permission>READ</Permission></Grant></AccessControlList>"
      "</AccessControlPolicy>";
  ASSERT_TRUE(ParseAccessControlPolicy(unknown, "o", lenient, &parsed).ok());
  EXPECT_EQ(parsed, (AclRecord{"o", {User("someone", AclPermission::kRead)}}));
}

// A body with one grant (`grantee` inside <Grantee ...>, `attributes` on it) and `permission`.
std::string OneGrant(std::string_view attributes, std::string_view grantee,
                     std::string_view permission = "READ", std::string_view owner = {}) {
  return "<AccessControlPolicy><Owner><ID>" + std::string(owner.empty() ? kAlice : owner) +
         "</ID></Owner><AccessControlList><Grant><Grantee " + std::string(attributes) + ">" +
         std::string(grantee) + "</Grantee><Permission>" + std::string(permission) +
         "</Permission></Grant></AccessControlList></AccessControlPolicy>";
}

TEST(AclXmlTest, ParseAccessControlPolicyErrors) {
  const std::string xsi = "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" ";
  const std::string user = xsi + "xsi:type=\"CanonicalUser\"";
  const std::string bob_id = "<ID>" + kBob + "</ID>";
  const std::string owner_only = "<Owner><ID>" + kAlice + "</ID></Owner>";
  const std::string empty_list = "<AccessControlList></AccessControlList>";
  struct Case {
    std::string name;
    std::string body;
    ErrorCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"not xml", "<AccessControlPolicy>", ErrorCode::kMalformedACLError, ""},
      {"empty body", "", ErrorCode::kMalformedACLError, ""},
      {"other root", "<Policy>" + owner_only + empty_list + "</Policy>",
       ErrorCode::kMalformedACLError, ""},
      {"no owner", "<AccessControlPolicy>" + empty_list + "</AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"owner without id",
       "<AccessControlPolicy><Owner><DisplayName>a</DisplayName></Owner>" + empty_list +
           "</AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"owner with unknown element",
       "<AccessControlPolicy><Owner><ID>" + kAlice + "</ID><Email>x</Email></Owner>" + empty_list +
           "</AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"no list", "<AccessControlPolicy>" + owner_only + "</AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"two owners",
       "<AccessControlPolicy>" + owner_only + owner_only + empty_list + "</AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"unknown top element",
       "<AccessControlPolicy>" + owner_only + empty_list + "<Extra/></AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"list holds a non-grant",
       "<AccessControlPolicy>" + owner_only +
           "<AccessControlList><Grantee/></AccessControlList></AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"grant without permission",
       "<AccessControlPolicy>" + owner_only + "<AccessControlList><Grant><Grantee " + user + ">" +
           bob_id + "</Grantee></Grant></AccessControlList></AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"grant without grantee",
       "<AccessControlPolicy>" + owner_only +
           "<AccessControlList><Grant><Permission>READ</Permission></Grant></AccessControlList>"
           "</AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"grant with two permissions",
       "<AccessControlPolicy>" + owner_only + "<AccessControlList><Grant><Grantee " + user + ">" +
           bob_id +
           "</Grantee><Permission>READ</Permission><Permission>WRITE</Permission></Grant>"
           "</AccessControlList></AccessControlPolicy>",
       ErrorCode::kMalformedACLError, ""},
      {"unknown permission", OneGrant(user, bob_id, "READ_WRITE"), ErrorCode::kMalformedACLError,
       ""},
      {"lowercase permission", OneGrant(user, bob_id, "read"), ErrorCode::kMalformedACLError, ""},
      {"no xsi:type", OneGrant("", bob_id), ErrorCode::kMalformedACLError, ""},
      {"type without namespace", OneGrant("type=\"CanonicalUser\"", bob_id),
       ErrorCode::kMalformedACLError, ""},
      {"unbound xsi prefix", OneGrant("xsi:type=\"CanonicalUser\"", bob_id),
       ErrorCode::kMalformedACLError, ""},
      {"unknown type", OneGrant(xsi + "xsi:type=\"Canonical User\"", bob_id),
       ErrorCode::kMalformedACLError, ""},
      {"canonical user without id", OneGrant(user, "<DisplayName>b</DisplayName>"),
       ErrorCode::kMalformedACLError, ""},
      {"canonical user with empty id", OneGrant(user, "<ID> </ID>"), ErrorCode::kMalformedACLError,
       ""},
      {"email grantee without address",
       OneGrant(xsi + "xsi:type=\"AmazonCustomerByEmail\"", bob_id), ErrorCode::kMalformedACLError,
       ""},
      {"group without uri", OneGrant(xsi + "xsi:type=\"Group\"", bob_id),
       ErrorCode::kMalformedACLError, ""},
      {"unknown grantee element", OneGrant(user, bob_id + "<Name>b</Name>"),
       ErrorCode::kMalformedACLError, ""},
      {"two ids", OneGrant(user, bob_id + bob_id), ErrorCode::kMalformedACLError, ""},
      // The structure is checked before the owner, the owner before the grantees.
      {"malformed and not the owner", OneGrant("", bob_id, "READ", kBob),
       ErrorCode::kMalformedACLError, ""},
      {"not the owner", OneGrant(user, bob_id, "READ", kBob), ErrorCode::kAccessDenied, ""},
      {"not the owner, unknown grantee", OneGrant(user, "<ID>" + kCarol + "</ID>", "READ", kBob),
       ErrorCode::kAccessDenied, ""},
      {"unknown id", OneGrant(user, "<ID>" + kCarol + "</ID>"), ErrorCode::kInvalidArgument,
       "Invalid id"},
      {"unknown group", OneGrant(xsi + "xsi:type=\"Group\"", "<URI>http://example.com/g</URI>"),
       ErrorCode::kInvalidArgument, "Invalid group uri"},
      {"unknown email",
       OneGrant(xsi + "xsi:type=\"AmazonCustomerByEmail\"",
                "<EmailAddress>nobody@example.com</EmailAddress>"),
       ErrorCode::kUnresolvableGrantByEmailAddress, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name + ": " + c.body);
    AclRecord out{"sentinel", {}};
    XmlBodyError e = ParseAccessControlPolicy(c.body, kAlice, Resolver(), &out);
    EXPECT_EQ(e.code, c.code);
    EXPECT_EQ(e.message, c.message);
    EXPECT_EQ(out.owner_id, "sentinel") << "unchanged on failure";
  }
  // Without an e-mail resolver every address is unresolvable.
  AclRecord out;
  EXPECT_EQ(ParseAccessControlPolicy(OneGrant(xsi + "xsi:type=\"AmazonCustomerByEmail\"",
                                              "<EmailAddress>alice@example.com</EmailAddress>"),
                                     kAlice, {}, &out)
                .code,
            ErrorCode::kUnresolvableGrantByEmailAddress);
}

TEST(AclXmlTest, OwnershipControlsRoundTrip) {
  for (ObjectOwnership o : {ObjectOwnership::kObjectWriter, ObjectOwnership::kBucketOwnerPreferred,
                            ObjectOwnership::kBucketOwnerEnforced}) {
    const std::string doc = OwnershipControlsXml(o);
    EXPECT_EQ(doc,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<OwnershipControls xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Rule>"
              "<ObjectOwnership>" +
                  std::string(iam::ObjectOwnershipName(o)) +
                  "</ObjectOwnership></Rule></OwnershipControls>");
    ObjectOwnership parsed = o == ObjectOwnership::kObjectWriter
                                 ? ObjectOwnership::kBucketOwnerEnforced
                                 : ObjectOwnership::kObjectWriter;
    ASSERT_TRUE(ParseOwnershipControls(doc, &parsed).ok()) << doc;
    EXPECT_EQ(parsed, o);
  }
  ObjectOwnership parsed = ObjectOwnership::kObjectWriter;
  ASSERT_TRUE(ParseOwnershipControls("<OwnershipControls>\n <Rule>\n  <ObjectOwnership>"
                                     "BucketOwnerPreferred</ObjectOwnership>\n </Rule>\n"
                                     "</OwnershipControls>",
                                     &parsed)
                  .ok());
  EXPECT_EQ(parsed, ObjectOwnership::kBucketOwnerPreferred);
}

TEST(AclXmlTest, ParseOwnershipControlsErrors) {
  auto rule = [](std::string_view value) {
    return "<Rule><ObjectOwnership>" + std::string(value) + "</ObjectOwnership></Rule>";
  };
  const std::vector<std::string> bad = {
      "",
      "<OwnershipControls>",
      "<OwnershipControls></OwnershipControls>",
      "<Ownership>" + rule("ObjectWriter") + "</Ownership>",
      "<OwnershipControls>" + rule("ObjectWriter") + rule("ObjectWriter") + "</OwnershipControls>",
      "<OwnershipControls><Rule></Rule></OwnershipControls>",
      "<OwnershipControls>" + rule("objectwriter") + "</OwnershipControls>",
      "<OwnershipControls>" + rule("") + "</OwnershipControls>",
      "<OwnershipControls>" + rule("BucketOwner") + "</OwnershipControls>",
      "<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership>"
      "<ObjectOwnership>ObjectWriter</ObjectOwnership></Rule></OwnershipControls>",
      "<OwnershipControls><Rule><ObjectOwnership>ObjectWriter</ObjectOwnership><X/></Rule>"
      "</OwnershipControls>",
      "<OwnershipControls>" + rule("ObjectWriter") + "<X/></OwnershipControls>",
  };
  for (const std::string& doc : bad) {
    ObjectOwnership parsed = ObjectOwnership::kBucketOwnerPreferred;
    XmlBodyError e = ParseOwnershipControls(doc, &parsed);
    EXPECT_EQ(e.code, ErrorCode::kMalformedXML) << doc;
    EXPECT_EQ(parsed, ObjectOwnership::kBucketOwnerPreferred) << doc;
  }
}

TEST(AclXmlTest, PublicAccessBlockRoundTrip) {
  for (int bits = 0; bits < 16; ++bits) {
    const PublicAccessBlock block{.configured = true,
                                  .block_public_acls = (bits & 1) != 0,
                                  .ignore_public_acls = (bits & 2) != 0,
                                  .block_public_policy = (bits & 4) != 0,
                                  .restrict_public_buckets = (bits & 8) != 0};
    const std::string doc = PublicAccessBlockXml(block);
    PublicAccessBlock parsed;
    ASSERT_TRUE(ParsePublicAccessBlock(doc, &parsed).ok()) << doc;
    EXPECT_EQ(parsed, block) << doc;
  }
  EXPECT_EQ(PublicAccessBlockXml({.configured = true, .ignore_public_acls = true}),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<PublicAccessBlockConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
            "<BlockPublicAcls>false</BlockPublicAcls><IgnorePublicAcls>true</IgnorePublicAcls>"
            "<BlockPublicPolicy>false</BlockPublicPolicy>"
            "<RestrictPublicBuckets>false</RestrictPublicBuckets>"
            "</PublicAccessBlockConfiguration>");
}

TEST(AclXmlTest, ParsePublicAccessBlockAccepts) {
  struct Case {
    std::string body;
    PublicAccessBlock block;
  };
  const std::vector<Case> cases = {
      {"<PublicAccessBlockConfiguration/>", {.configured = true}},
      {"<PublicAccessBlockConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
       "<RestrictPublicBuckets>true</RestrictPublicBuckets></PublicAccessBlockConfiguration>",
       {.configured = true, .restrict_public_buckets = true}},
      {"<PublicAccessBlockConfiguration><BlockPublicPolicy> 1\n</BlockPublicPolicy>"
       "<BlockPublicAcls>0</BlockPublicAcls><IgnorePublicAcls>true</IgnorePublicAcls>"
       "</PublicAccessBlockConfiguration>",
       {.configured = true, .ignore_public_acls = true, .block_public_policy = true}},
  };
  for (const Case& c : cases) {
    PublicAccessBlock parsed{.block_public_acls = true};
    ASSERT_TRUE(ParsePublicAccessBlock(c.body, &parsed).ok()) << c.body;
    EXPECT_EQ(parsed, c.block) << c.body;
  }
}

TEST(AclXmlTest, ParsePublicAccessBlockErrors) {
  const std::vector<std::string> bad = {
      "",
      "<PublicAccessBlockConfiguration>",
      "<PublicAccessBlock><BlockPublicAcls>true</BlockPublicAcls></PublicAccessBlock>",
      "<PublicAccessBlockConfiguration><BlockPublicAcls>yes</BlockPublicAcls>"
      "</PublicAccessBlockConfiguration>",
      "<PublicAccessBlockConfiguration><BlockPublicAcls>TRUE</BlockPublicAcls>"
      "</PublicAccessBlockConfiguration>",
      "<PublicAccessBlockConfiguration><BlockPublicAcls></BlockPublicAcls>"
      "</PublicAccessBlockConfiguration>",
      "<PublicAccessBlockConfiguration><BlockPublicAcls>true</BlockPublicAcls>"
      "<BlockPublicAcls>true</BlockPublicAcls></PublicAccessBlockConfiguration>",
      "<PublicAccessBlockConfiguration><BlockPublicAcl>true</BlockPublicAcl>"
      "</PublicAccessBlockConfiguration>",
  };
  for (const std::string& doc : bad) {
    PublicAccessBlock parsed{.ignore_public_acls = true};
    XmlBodyError e = ParsePublicAccessBlock(doc, &parsed);
    EXPECT_EQ(e.code, ErrorCode::kMalformedXML) << doc;
    EXPECT_EQ(parsed, (PublicAccessBlock{.ignore_public_acls = true})) << doc;
  }
}

}  // namespace
}  // namespace cubby::s3api
