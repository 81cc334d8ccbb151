// The multipart/form-data reader (s3api/form_data.h): fields, the streamed file, and every
// error, with the body cut into pieces of every size (a delimiter split anywhere must read
// alike).
#include "s3api/form_data.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace cubby::s3api {
namespace {

// Gives at most `piece` bytes per Read; then `end_error` (kNone: a clean end).
class PieceReader : public BodyReader {
 public:
  PieceReader(std::string data, size_t piece, ErrorCode end_error = ErrorCode::kNone)
      : data_(std::move(data)), piece_(piece), end_error_(end_error) {}
  ReadResult Read(char* buf, size_t n) override {
    if (pos_ == data_.size()) return {0, end_error_};
    const size_t k = std::min({n, piece_, data_.size() - pos_});
    std::copy_n(data_.data() + pos_, k, buf);
    pos_ += k;
    return {k, ErrorCode::kNone};
  }

 private:
  std::string data_;
  size_t piece_;
  size_t pos_ = 0;
  ErrorCode end_error_;
};

const std::string kBoundary = "----WebKitFormBoundaryX3b";

std::string Part(const std::string& name, const std::string& value) {
  return "--" + kBoundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"\r\n\r\n" +
         value + "\r\n";
}
std::string FilePart(const std::string& content, const std::string& filename = "a.txt") {
  return "--" + kBoundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"" +
         filename + "\"\r\nContent-Type: text/plain\r\n\r\n" + content + "\r\n";
}
std::string Close() { return "--" + kBoundary + "--\r\n"; }

struct Parsed {
  ErrorCode fields_error = ErrorCode::kNone;
  ErrorCode file_error = ErrorCode::kNone;
  std::vector<FormField> fields;
  std::string filename, file_type, content;
};

Parsed Parse(const std::string& body, size_t piece, size_t read_size = 7,
             size_t max_pre = kMaxPostPreDataBytes, ErrorCode end_error = ErrorCode::kNone) {
  PieceReader reader(body, piece, end_error);
  FormDataReader form(reader, kBoundary, max_pre);
  Parsed p;
  p.fields_error = form.ReadFields(&p.fields, &p.filename, &p.file_type);
  if (p.fields_error != ErrorCode::kNone) return p;
  std::vector<char> buf(read_size);
  for (;;) {
    ReadResult r = form.Read(buf.data(), buf.size());
    if (r.error != ErrorCode::kNone) {
      p.file_error = r.error;
      break;
    }
    if (r.n == 0) break;
    p.content.append(buf.data(), r.n);
  }
  return p;
}

TEST(FormDataTest, Boundary) {
  struct Case {
    std::string content_type;
    bool ok;
    std::string boundary;
  };
  const std::vector<Case> cases = {
      {"multipart/form-data; boundary=abc", true, "abc"},
      {"Multipart/Form-Data;boundary=\"a b;c\"", true, "a b;c"},
      {"multipart/form-data; charset=utf-8; BOUNDARY=x", true, "x"},
      {"multipart/form-data", false, ""},
      {"multipart/form-data; boundary=", false, ""},
      {"multipart/form-data; boundary=\"abc", false, ""},
      {"multipart/form-data; boundary=" + std::string(71, 'a'), false, ""},
      {"multipart/mixed; boundary=abc", false, ""},
      {"application/x-www-form-urlencoded", false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.content_type);
    std::string b;
    EXPECT_EQ(MultipartFormBoundary(c.content_type, &b), c.ok);
    if (c.ok) EXPECT_EQ(b, c.boundary);
  }
}

// Every piece size, every read size: the same fields and the same file.
TEST(FormDataTest, SplitAnywhere) {
  // The content holds near-delimiters: CRLF, "--", the boundary without the CRLF before it
  // (CRLF "--" boundary itself never appears in a part's content: RFC 2046).
  const std::string content = "line1\r\n--" + kBoundary.substr(0, 10) + "\r\n-\r\nx--" + kBoundary +
                              "\r" + std::string(300, 'z') + "\r\n";
  const std::string body = "preamble\r\n" + Part("Key", "uploads/${filename}") + Part("acl", "") +
                           FilePart(content) + Part("after", "ignored") + Close();
  for (size_t piece : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{13}, size_t{64},
                       size_t{1000}, body.size()}) {
    for (size_t read_size : {size_t{1}, size_t{7}, size_t{4096}}) {
      SCOPED_TRACE("piece " + std::to_string(piece) + " read " + std::to_string(read_size));
      Parsed p = Parse(body, piece, read_size);
      ASSERT_EQ(p.fields_error, ErrorCode::kNone);
      EXPECT_EQ(p.file_error, ErrorCode::kNone);
      ASSERT_EQ(p.fields.size(), 2u);
      EXPECT_EQ(p.fields[0].name, "key");  // lowercase
      EXPECT_EQ(p.fields[0].value, "uploads/${filename}");
      EXPECT_EQ(p.fields[1].name, "acl");
      EXPECT_EQ(p.fields[1].value, "");
      EXPECT_EQ(p.filename, "a.txt");
      EXPECT_EQ(p.file_type, "text/plain");
      EXPECT_EQ(p.content, content);
    }
  }
}

TEST(FormDataTest, FirstDelimiterWithoutPreambleAndEmptyFile) {
  Parsed p = Parse(Part("key", "k") + FilePart("") + Close(), 1);
  ASSERT_EQ(p.fields_error, ErrorCode::kNone);
  EXPECT_EQ(p.file_error, ErrorCode::kNone);
  EXPECT_EQ(p.content, "");
  // Transport padding after a delimiter is allowed.
  std::string padded = Part("key", "k");
  padded.insert(2 + kBoundary.size(), " \t");
  p = Parse(padded + FilePart("x") + Close(), 3);
  ASSERT_EQ(p.fields_error, ErrorCode::kNone);
  EXPECT_EQ(p.content, "x");
  // A Windows path as a browser sends it: backslashes are not escapes.
  p = Parse(Part("key", "k") + FilePart("y", "C:\\docs\\a.txt") + Close(), 4);
  ASSERT_EQ(p.fields_error, ErrorCode::kNone);
  EXPECT_EQ(p.filename, "C:\\docs\\a.txt");
}

TEST(FormDataTest, Errors) {
  struct Case {
    std::string name;
    std::string body;
    ErrorCode fields_error;
    ErrorCode file_error;
  };
  const std::vector<Case> cases = {
      {"no boundary at all", "just text", ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"empty body", "", ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"no file field", Part("key", "k") + Close(), ErrorCode::kIncorrectNumberOfFilesInPostRequest,
       ErrorCode::kNone},
      {"missing final boundary", Part("key", "k") + FilePart("data"), ErrorCode::kNone,
       ErrorCode::kMalformedPOSTRequest},
      {"file without end",
       Part("key", "k") + "--" + kBoundary +
           "\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc",
       ErrorCode::kNone, ErrorCode::kMalformedPOSTRequest},
      {"field without end", Part("key", "k").substr(0, 60), ErrorCode::kMalformedPOSTRequest,
       ErrorCode::kNone},
      {"part without headers", "--" + kBoundary + "\r\n\r\nvalue\r\n" + Close(),
       ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"part without a name",
       "--" + kBoundary + "\r\nContent-Disposition: form-data\r\n\r\nv\r\n" + Close(),
       ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"not form-data",
       "--" + kBoundary + "\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n" + Close(),
       ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"header line without colon",
       "--" + kBoundary + "\r\nContent-Disposition form-data\r\n\r\nv\r\n" + Close(),
       ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"garbage after delimiter", "--" + kBoundary + "xx\r\n" + Close(),
       ErrorCode::kMalformedPOSTRequest, ErrorCode::kNone},
      {"fields too large",
       Part("key", std::string(kMaxPostPreDataBytes, 'k')) + FilePart("x") + Close(),
       ErrorCode::kMaxPostPreDataLengthExceededError, ErrorCode::kNone},
      {"too many fields",
       [] {
         std::string s;
         for (int i = 0; i < 400; ++i) s += Part("x-ignore-" + std::to_string(i), "v");
         return s + FilePart("x") + Close();
       }(),
       ErrorCode::kMaxPostPreDataLengthExceededError, ErrorCode::kNone},
  };
  for (const Case& c : cases) {
    for (size_t piece : {size_t{1}, size_t{17}, size_t{1} << 20}) {
      SCOPED_TRACE(c.name + " piece " + std::to_string(piece));
      Parsed p = Parse(c.body, piece);
      EXPECT_EQ(p.fields_error, c.fields_error);
      EXPECT_EQ(p.file_error, c.file_error);
    }
  }
}

// A large file passes while the fields stay bounded; the body's own errors come through.
TEST(FormDataTest, LargeFileAndBodyErrors) {
  const std::string big(3 << 20, 'b');
  Parsed p = Parse(Part("key", "k") + FilePart(big) + Close(), 1 << 16, 1 << 16);
  ASSERT_EQ(p.fields_error, ErrorCode::kNone);
  EXPECT_EQ(p.content.size(), big.size());
  EXPECT_EQ(p.content, big);

  p = Parse(Part("key", "k"), 5, 7, kMaxPostPreDataBytes, ErrorCode::kIncompleteBody);
  EXPECT_EQ(p.fields_error, ErrorCode::kIncompleteBody);
  p = Parse(Part("key", "k") + FilePart("abc"), 5, 7, kMaxPostPreDataBytes,
            ErrorCode::kRequestTimeout);
  EXPECT_EQ(p.fields_error, ErrorCode::kNone);
  EXPECT_EQ(p.file_error, ErrorCode::kRequestTimeout);
}

TEST(FormDataTest, DrainRest) {
  PieceReader reader(
      Part("key", "k") + FilePart("abc") + Part("tail", std::string(1000, 't')) + Close(), 9);
  FormDataReader form(reader, kBoundary);
  std::vector<FormField> fields;
  std::string filename, type;
  ASSERT_EQ(form.ReadFields(&fields, &filename, &type), ErrorCode::kNone);
  char buf[64];
  ReadResult r = form.Read(buf, sizeof(buf));
  EXPECT_EQ(std::string(buf, r.n), "abc");
  EXPECT_EQ(form.Read(buf, sizeof(buf)).n, 0u);
  EXPECT_EQ(form.DrainRest(), ErrorCode::kNone);
  EXPECT_EQ(reader.Read(buf, sizeof(buf)).n, 0u);  // all consumed
}

}  // namespace
}  // namespace cubby::s3api
