// multipart/form-data for POST Object (RFC 7578; delimiters as RFC 2046 section 5.1.1 has them).
#include "s3api/form_data.h"

#include <algorithm>
#include <cstring>

#include "text/ascii.h"

namespace cubby::s3api {

namespace {

constexpr size_t kFillBytes = 64 << 10;
constexpr size_t kMaxBoundaryBytes = 70;  // RFC 2046 section 5.1.1

// Splits "a; b=c; d=\"e;f\"" into its first item and name=value parameters (names lowercase,
// quoted values unquoted). A backslash is a character like another: browsers send Windows paths
// as filenames and escape nothing but '"' (as %22), as RFC 7578 section 4.2 and the HTML
// standard have it. False on an unterminated quote.
struct Param {
  std::string name;
  std::string value;
};
bool SplitParams(std::string_view s, std::string* first, std::vector<Param>* params) {
  const size_t semi = s.find(';');
  *first = text::AsciiLowercase(text::TrimOws(s.substr(0, semi)));
  if (semi == std::string_view::npos) return true;
  size_t i = semi + 1;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ';')) ++i;
    if (i >= s.size()) break;
    size_t name_end = i;
    while (name_end < s.size() && s[name_end] != '=' && s[name_end] != ';') ++name_end;
    Param p;
    p.name = text::AsciiLowercase(text::TrimOws(s.substr(i, name_end - i)));
    i = name_end;
    if (i < s.size() && s[i] == '=') {
      ++i;
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
      if (i < s.size() && s[i] == '"') {
        ++i;
        bool closed = false;
        while (i < s.size()) {
          if (s[i] == '"') {
            ++i;
            closed = true;
            break;
          } else {
            p.value += s[i++];
          }
        }
        if (!closed) return false;
      } else {
        size_t end = i;
        while (end < s.size() && s[end] != ';') ++end;
        p.value = std::string(text::TrimOws(s.substr(i, end - i)));
        i = end;
      }
    }
    params->push_back(std::move(p));
  }
  return true;
}

const std::string* FindParam(const std::vector<Param>& params, std::string_view name) {
  for (const Param& p : params) {
    if (p.name == name) return &p.value;
  }
  return nullptr;
}

// A part's headers: its field name, and for the file its filename and Content-Type.
struct PartHeaders {
  std::string name;
  std::string filename;
  std::string content_type;
};
bool ParsePartHeaders(std::string_view block, PartHeaders* out) {
  bool disposition = false;
  while (!block.empty()) {
    const size_t eol = block.find("\r\n");
    const std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view name = text::TrimOws(line.substr(0, colon));
    const std::string_view value = text::TrimOws(line.substr(colon + 1));
    if (text::EqualsIgnoreCase(name, "content-disposition")) {
      std::string type;
      std::vector<Param> params;
      if (!SplitParams(value, &type, &params) || type != "form-data") return false;
      const std::string* field = FindParam(params, "name");
      if (field == nullptr || field->empty()) return false;
      out->name = text::AsciiLowercase(*field);
      if (const std::string* file = FindParam(params, "filename")) out->filename = *file;
      disposition = true;
    } else if (text::EqualsIgnoreCase(name, "content-type")) {
      out->content_type = std::string(value);
    }
  }
  return disposition;
}

}  // namespace

bool MultipartFormBoundary(std::string_view content_type, std::string* boundary) {
  std::string type;
  std::vector<Param> params;
  if (!SplitParams(content_type, &type, &params) || type != "multipart/form-data") return false;
  const std::string* b = FindParam(params, "boundary");
  if (b == nullptr || b->empty() || b->size() > kMaxBoundaryBytes) return false;
  *boundary = *b;
  return true;
}

FormDataReader::FormDataReader(BodyReader& body, std::string boundary, size_t max_pre_data)
    : body_(body), delimiter_("\r\n--" + boundary), max_pre_data_(max_pre_data) {}

bool FormDataReader::Fill() {
  if (eof_ || error_ != ErrorCode::kNone) return false;
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  const size_t old = buf_.size();
  buf_.resize(old + kFillBytes);
  const ReadResult r = body_.Read(buf_.data() + old, kFillBytes);
  buf_.resize(old + r.n);
  if (r.error != ErrorCode::kNone) {
    error_ = r.error;
    return false;
  }
  if (r.n == 0) {
    eof_ = true;
    return false;
  }
  return true;
}

void FormDataReader::Consume(size_t n) {
  pos_ += n;
  if (!in_file_) pre_data_ += n;
}

ErrorCode FormDataReader::FindPending(std::string_view what, size_t* at) {
  size_t from = 0;
  for (;;) {
    const std::string_view pending = Pending();
    const size_t found = pending.find(what, from);
    if (found != std::string_view::npos) {
      if (pre_data_ + found + what.size() > max_pre_data_) {
        return ErrorCode::kMaxPostPreDataLengthExceededError;
      }
      *at = found;
      return ErrorCode::kNone;
    }
    if (pre_data_ + pending.size() > max_pre_data_) {
      return ErrorCode::kMaxPostPreDataLengthExceededError;
    }
    from = pending.size() >= what.size() ? pending.size() - what.size() + 1 : 0;
    if (!Fill()) {
      return error_ != ErrorCode::kNone ? error_ : ErrorCode::kMalformedPOSTRequest;
    }
  }
}

ErrorCode FormDataReader::ReadFields(std::vector<FormField>* fields, std::string* filename,
                                     std::string* file_content_type) {
  // The first delimiter may open the body without a CRLF before it (RFC 2046): one is assumed,
  // and counted as the preamble's.
  buf_.assign("\r\n");
  pos_ = 0;
  size_t at = 0;
  if (ErrorCode e = FindPending(delimiter_, &at); e != ErrorCode::kNone) return e;
  Consume(at + delimiter_.size());
  for (;;) {
    while (Pending().size() < 2 && Fill()) {
    }
    if (Pending().size() < 2) {
      return error_ != ErrorCode::kNone ? error_ : ErrorCode::kMalformedPOSTRequest;
    }
    // The close delimiter: the form ended without a file.
    if (Pending().starts_with("--")) return ErrorCode::kIncorrectNumberOfFilesInPostRequest;
    // Transport padding (spaces, tabs) then CRLF ends the delimiter line.
    if (ErrorCode e = FindPending("\r\n", &at); e != ErrorCode::kNone) return e;
    if (Pending().substr(0, at).find_first_not_of(" \t") != std::string_view::npos) {
      return ErrorCode::kMalformedPOSTRequest;
    }
    Consume(at + 2);
    while (Pending().size() < 2 && Fill()) {
    }
    if (Pending().starts_with("\r\n")) return ErrorCode::kMalformedPOSTRequest;  // no headers
    if (ErrorCode e = FindPending("\r\n\r\n", &at); e != ErrorCode::kNone) return e;
    PartHeaders part;
    if (!ParsePartHeaders(Pending().substr(0, at), &part)) {
      return ErrorCode::kMalformedPOSTRequest;
    }
    Consume(at + 4);
    if (part.name == "file") {
      *filename = std::move(part.filename);
      *file_content_type = std::move(part.content_type);
      in_file_ = true;
      return ErrorCode::kNone;
    }
    if (ErrorCode e = FindPending(delimiter_, &at); e != ErrorCode::kNone) return e;
    fields->push_back({std::move(part.name), std::string(Pending().substr(0, at))});
    Consume(at + delimiter_.size());
  }
}

ReadResult FormDataReader::Read(char* buf, size_t n) {
  if (file_ended_ || n == 0) return {};
  for (;;) {
    if (clear_ > 0) {
      const size_t k = std::min(n, clear_);
      std::memcpy(buf, Pending().data(), k);
      clear_ -= k;
      Consume(k);
      return {k, ErrorCode::kNone};
    }
    const std::string_view pending = Pending();
    const size_t found = pending.find(delimiter_);
    if (found == 0) {
      Consume(delimiter_.size());
      file_ended_ = true;
      return {};
    }
    if (found != std::string_view::npos) {
      clear_ = found;
      continue;
    }
    // The last delimiter_.size() - 1 bytes may start the delimiter: kept until more arrive.
    clear_ = pending.size() >= delimiter_.size() ? pending.size() - delimiter_.size() + 1 : 0;
    if (clear_ > 0) continue;
    if (!Fill()) {
      return {0, error_ != ErrorCode::kNone ? error_ : ErrorCode::kMalformedPOSTRequest};
    }
  }
}

ErrorCode FormDataReader::DrainRest() {
  buf_.clear();
  pos_ = 0;
  while (Fill()) {
    buf_.clear();
    pos_ = 0;
  }
  return error_;
}

}  // namespace cubby::s3api
