// A streaming reader of multipart/form-data request bodies (RFC 7578, RFC 2046 section 5.1.1),
// for POST Object's browser forms: the fields before the `file` field are read into memory,
// bounded; the file's content is then pulled in pieces, never held whole.
//   https://docs.aws.amazon.com/AmazonS3/latest/API/RESTObjectPOST.html
//   https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTForms.html
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/errors.h"
#include "s3api/http.h"

namespace cubby::s3api {

// AWS refuses a form whose fields before `file` exceed 20 KB (MaxPostPreDataLengthExceededError).
inline constexpr size_t kMaxPostPreDataBytes = 20 << 10;

// The boundary of a "multipart/form-data; boundary=..." Content-Type (the media type compared
// case-insensitively, the boundary optionally quoted). False when the type is another one, or
// the boundary is missing, empty or longer than RFC 2046's 70 characters.
bool MultipartFormBoundary(std::string_view content_type, std::string* boundary);

// Reads one form. Use: ReadFields once, then ReadFile (as a BodyReader) until it returns end.
// Fields after the file part are never read (AWS ignores them). Errors:
//  - MalformedPOSTRequest: not multipart/form-data framing (no opening boundary, a part without
//    a name, headers without an end, a body ending before the closing boundary);
//  - MaxPostPreDataLengthExceededError: the bytes before the file's content exceed
//    `max_pre_data` (headers and values, counted as they arrive);
//  - IncorrectNumberOfFilesInPostRequest: the form ends without a `file` field;
//  - the body's own read error, as it is (IncompleteBody, RequestTimeout, ...).
// Not thread-safe. `body` must outlive the reader.
class FormDataReader : public BodyReader {
 public:
  FormDataReader(BodyReader& body, std::string boundary,
                 size_t max_pre_data = kMaxPostPreDataBytes);

  // Reads the fields up to the `file` part into *fields (in order, repeated names kept), and
  // the file part's filename (its Content-Disposition filename parameter, "" when absent) and
  // Content-Type. kNone, or the error above. Call once.
  ErrorCode ReadFields(std::vector<FormField>* fields, std::string* filename,
                       std::string* file_content_type);

  // The file's content: bytes up to the delimiter that ends the part. {0, kNone} at its end;
  // {0, MalformedPOSTRequest} if the body ends first. REQUIRES: ReadFields returned kNone.
  ReadResult Read(char* buf, size_t n) override;

  // Reads and discards the rest of the body (the parts after the file), so that the
  // connection can carry another request. Returns the body's error, if any.
  ErrorCode DrainRest();

 private:
  // Appends up to one read of the body to buf_; false at end of body, or on error (error_ set).
  bool Fill();
  std::string_view Pending() const { return std::string_view(buf_).substr(pos_); }
  void Consume(size_t n);
  // Finds `what` in the pending bytes, filling as needed; bounded by max_pre_data_.
  ErrorCode FindPending(std::string_view what, size_t* at);

  BodyReader& body_;
  const std::string delimiter_;  // "\r\n--" + boundary
  const size_t max_pre_data_;
  std::string buf_;
  size_t pos_ = 0;
  size_t pre_data_ = 0;  // bytes consumed before the file's content
  size_t clear_ = 0;     // pending file bytes known to hold no delimiter
  bool in_file_ = false;
  bool eof_ = false;
  ErrorCode error_ = ErrorCode::kNone;
  bool file_ended_ = false;
};

}  // namespace cubby::s3api
