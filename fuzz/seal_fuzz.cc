// Sealed object data as a hostile or failing disk hands it back (crypt/seal.h, the bytes GET and
// copies open). Per input:
//  - whatever bytes are fed as sealed data for an object of some size and some range,
//    OpenReader never crashes and never releases more than the range, and anything it releases
//    before failing comes from whole segments that authenticated;
//  - a plaintext built from the input, sealed and opened again over a chosen range, gives back
//    exactly that range;
//  - the same sealed bytes with one byte flipped (or cut short) never open in full.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "crypt/key.h"
#include "crypt/seal.h"

namespace {

using cubby::crypt::DataKey;
using cubby::crypt::OpenReader;
using cubby::crypt::SealedRange;

const DataKey& TestKey() {
  static const DataKey key = [] {
    unsigned char bytes[32];
    for (int i = 0; i < 32; ++i) bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    return DataKey::FromBytes(bytes);
  }();
  return key;
}

uint32_t Take32(const uint8_t*& data, size_t& size) {
  uint32_t v = 0;
  for (int i = 0; i < 4 && size > 0; ++i, ++data, --size) v = (v << 8) | *data;
  return v;
}

// Opens `sealed` over `range`; true when every byte was released. Aborts on a broken promise.
bool Open(const SealedRange& range, std::string_view sealed, std::string* out) {
  OpenReader reader(TestKey(), "fuzz", range, [&](std::string_view piece) {
    out->append(piece);
    if (out->size() > range.plaintext_length) __builtin_trap();
    return true;
  });
  // In uneven pieces, as storage reads return them.
  size_t step = 1 + sealed.size() % 7919;
  bool ok = true;
  while (!sealed.empty() && ok) {
    const size_t n = std::min(step, sealed.size());
    if (n > range.sealed_length) break;
    ok = reader.Update(sealed.substr(0, n)).ok();
    sealed.remove_prefix(n);
    step = step * 3 % 65537 + 1;
  }
  ok = ok && reader.Finish().ok();
  if (ok && out->size() != range.plaintext_length) __builtin_trap();
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint64_t plaintext_size = Take32(data, size) % (300 << 10);
  const uint32_t a = Take32(data, size), b = Take32(data, size), flip = Take32(data, size);
  const std::string_view rest(reinterpret_cast<const char*>(data), size);

  SealedRange range = cubby::crypt::PlanWhole(plaintext_size);
  if (plaintext_size > 0) {
    uint64_t first = a % plaintext_size, last = b % plaintext_size;
    if (first > last) std::swap(first, last);
    range = cubby::crypt::PlanRange(plaintext_size, first, last).value();
  }

  // Arbitrary bytes as the stored data of that range.
  std::string released;
  Open(range, rest, &released);

  // A real object: the input repeated to plaintext_size bytes.
  std::string plain(plaintext_size, '\0');
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = rest.empty() ? 'x' : rest[i % rest.size()];
  auto sealed = cubby::crypt::SealAll(TestKey(), "fuzz", plain);
  if (!sealed.ok()) __builtin_trap();
  if (sealed->size() != cubby::crypt::SealedSize(plaintext_size)) __builtin_trap();
  const std::string_view stored =
      std::string_view(*sealed).substr(range.sealed_offset, range.sealed_length);
  std::string opened;
  if (!Open(range, stored, &opened)) __builtin_trap();
  const uint64_t from = range.first_segment * cubby::crypt::kSegmentBytes + range.skip;
  if (opened != std::string_view(plain).substr(from, range.plaintext_length)) __builtin_trap();

  // One flipped bit, or one byte missing, never opens in full.
  std::string damaged(stored);
  if (flip & 1) {
    damaged[flip / 2 % damaged.size()] ^= static_cast<char>(1 << (flip % 8));
  } else {
    damaged.erase(flip / 2 % damaged.size(), 1);
  }
  std::string partial;
  if (Open(range, damaged, &partial)) __builtin_trap();
  return 0;
}
