// Fuzzes POST Object's multipart/form-data reader (s3api/form_data.h). The first byte picks the
// size of the pieces the body arrives in (1..64 bytes) and the second the read size (1..64);
// the rest is the body, under a fixed boundary. Besides not crashing, the result must not depend
// on how the body is cut: the same input read as one piece gives the same fields, file and
// errors, and a read never returns more than was asked.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "s3api/form_data.h"

namespace {

namespace s3api = cubby::s3api;

class PieceReader : public s3api::BodyReader {
 public:
  PieceReader(std::string_view data, size_t piece) : data_(data), piece_(piece) {}
  s3api::ReadResult Read(char* buf, size_t n) override {
    const size_t k = std::min({n, piece_, data_.size() - pos_});
    std::copy_n(data_.data() + pos_, k, buf);
    pos_ += k;
    return {k, s3api::ErrorCode::kNone};
  }

 private:
  std::string_view data_;
  size_t piece_;
  size_t pos_ = 0;
};

struct Outcome {
  s3api::ErrorCode fields_error = s3api::ErrorCode::kNone;
  s3api::ErrorCode file_error = s3api::ErrorCode::kNone;
  std::vector<s3api::FormField> fields;
  std::string filename, type, content;

  bool operator==(const Outcome& o) const {
    if (fields.size() != o.fields.size()) return false;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name != o.fields[i].name || fields[i].value != o.fields[i].value) return false;
    }
    return fields_error == o.fields_error && file_error == o.file_error && filename == o.filename &&
           type == o.type && content == o.content;
  }
};

Outcome Run(std::string_view body, size_t piece, size_t read_size) {
  PieceReader reader(body, piece);
  // A small bound, so that the fuzzer reaches MaxPostPreDataLengthExceededError too.
  s3api::FormDataReader form(reader, "xyzzy", 2048);
  Outcome o;
  o.fields_error = form.ReadFields(&o.fields, &o.filename, &o.type);
  if (o.fields_error != s3api::ErrorCode::kNone) return o;
  std::vector<char> buf(read_size);
  for (;;) {
    s3api::ReadResult r = form.Read(buf.data(), buf.size());
    if (r.n > read_size) std::abort();
    if (r.error != s3api::ErrorCode::kNone) {
      if (r.n != 0) std::abort();
      o.file_error = r.error;
      break;
    }
    if (r.n == 0) break;
    o.content.append(buf.data(), r.n);
  }
  (void)form.DrainRest();
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t piece = data[0] % 64 + 1;
  const size_t read_size = data[1] % 64 + 1;
  const std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  const Outcome cut = Run(body, piece, read_size);
  const Outcome whole = Run(body, body.size() + 1, 1 << 16);
  if (!(cut == whole)) std::abort();
  std::string boundary;
  (void)cubby::s3api::MultipartFormBoundary(body.substr(0, 200), &boundary);
  return 0;
}
