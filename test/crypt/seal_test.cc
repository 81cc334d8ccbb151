// The sealing engine: round trips of many sizes and piece sizes, every kind of range, and every
// kind of tampering failing cleanly (kAuthFailed, nothing released from the bad segment).
#include "crypt/seal.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace cubby::crypt {
namespace {

constexpr uint64_t kSeg = kSegmentBytes;
constexpr uint64_t kSealed = kSealedSegmentBytes;

DataKey TestKey(unsigned char fill) {
  unsigned char bytes[Key256::kBytes];
  for (size_t i = 0; i < sizeof bytes; ++i) bytes[i] = static_cast<unsigned char>(fill + i);
  return Key256::FromBytes(bytes);
}

std::string Plaintext(size_t n) {
  std::string s(n, '\0');
  std::mt19937 rng(static_cast<uint32_t>(n));
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

// Seals `plain` fed in pieces of `piece` bytes (0: all at once).
std::string SealInPieces(const DataKey& key, const std::string& context, const std::string& plain,
                         size_t piece) {
  std::string out;
  SealWriter w(key, context, [&](std::string_view p) {
    out.append(p);
    return true;
  });
  if (piece == 0) piece = plain.size() + 1;
  for (size_t at = 0; at < plain.size(); at += piece) {
    EXPECT_TRUE(w.Update(std::string_view(plain).substr(at, piece)).ok());
  }
  EXPECT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.plaintext_bytes(), plain.size());
  EXPECT_EQ(w.sealed_bytes(), out.size());
  return out;
}

// Opens [first, last] of `sealed` (the whole stored object) as a server would: reads only the
// planned sealed bytes, feeds them in pieces of `piece`.
Result<std::string> OpenRange(const DataKey& key, const std::string& context,
                              uint64_t plaintext_size, const std::string& sealed, uint64_t first,
                              uint64_t last, size_t piece) {
  auto plan = PlanRange(plaintext_size, first, last);
  if (!plan.ok()) return plan.status();
  std::string out;
  OpenReader r(key, context, *plan, [&](std::string_view p) {
    out.append(p);
    return true;
  });
  std::string_view slice =
      std::string_view(sealed).substr(plan->sealed_offset, plan->sealed_length);
  for (size_t at = 0; at < slice.size(); at += piece) {
    Status s = r.Update(slice.substr(at, piece));
    if (!s.ok()) return s;
  }
  Status s = r.Finish();
  if (!s.ok()) return s;
  return out;
}

TEST(Seal, SizesTable) {
  struct Case {
    uint64_t plain;
    uint64_t segments;
    uint64_t sealed;
  };
  const Case cases[] = {
      {0, 1, 16},
      {1, 1, 17},
      {kSeg - 1, 1, kSeg + 15},
      {kSeg, 1, kSeg + 16},
      {kSeg + 1, 2, kSeg + 1 + 32},
      {3 * kSeg, 3, 3 * kSealed},
      {3 * kSeg + 5, 4, 3 * kSealed + 5 + 16},
      {uint64_t{5} << 40, (uint64_t{5} << 40) / kSeg, (uint64_t{5} << 40) / kSeg * kSealed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.plain);
    EXPECT_EQ(SegmentCount(c.plain), c.segments);
    EXPECT_EQ(SealedSize(c.plain), c.sealed);
    auto back = PlaintextSize(c.sealed);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, c.plain);
  }
}

TEST(Seal, ImpossibleSealedSizesAreBadFormat) {
  // Less than a tag; a last segment of 1..16 bytes after full ones; an empty segment after a
  // full one (the writer never makes one).
  for (uint64_t bad :
       {uint64_t{0}, uint64_t{1}, uint64_t{15}, kSealed + 1, kSealed + 16, 2 * kSealed + 8}) {
    SCOPED_TRACE(bad);
    auto r = PlaintextSize(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kBadFormat);
  }
}

TEST(Seal, RoundTripsOfManySizesAndPieces) {
  const DataKey key = TestKey(1);
  const uint64_t sizes[] = {0, 1, 2, 16, kSeg - 1, kSeg, kSeg + 1, 2 * kSeg, 3 * kSeg + 7};
  const size_t pieces[] = {0, 1, 7, 4096, kSeg - 1, kSeg, kSeg + 3, 256 << 10};
  for (uint64_t size : sizes) {
    const std::string plain = Plaintext(size);
    std::string first_sealed;
    for (size_t piece : pieces) {
      if (piece == 1 && size > 2 * kSeg) continue;  // 1-byte pieces: up to two segments
      SCOPED_TRACE(testing::Message() << "size " << size << " piece " << piece);
      const std::string sealed = SealInPieces(key, "b/k/v", plain, piece);
      ASSERT_EQ(sealed.size(), SealedSize(size));
      // Piece sizes do not change the output (segments, nonces and AADs are the same).
      if (first_sealed.empty()) first_sealed = sealed;
      EXPECT_EQ(sealed, first_sealed);
      auto opened = OpenAll(key, "b/k/v", size, sealed);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      EXPECT_EQ(*opened, plain);
      // The plaintext does not appear in the sealed bytes.
      if (size >= 16) {
        EXPECT_EQ(sealed.find(plain.substr(0, 16)), std::string::npos);
      }
    }
  }
}

TEST(Seal, SealAllMatchesTheWriter) {
  const DataKey key = TestKey(2);
  const std::string plain = Plaintext(2 * kSeg + 100);
  auto all = SealAll(key, "ctx", plain);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, SealInPieces(key, "ctx", plain, 1000));
}

TEST(Seal, EveryRangeEqualsThePlaintextSlice) {
  const DataKey key = TestKey(3);
  const uint64_t size = 3 * kSeg + 100;
  const std::string plain = Plaintext(size);
  const std::string sealed = SealInPieces(key, "c", plain, 0);
  // Offsets in, at and around segment boundaries, and the ends of the object.
  std::vector<uint64_t> points = {0, 1, size - 1, size - 2};
  for (uint64_t b = kSeg; b < size; b += kSeg) {
    for (uint64_t p : {b - 2, b - 1, b, b + 1, b + 2}) points.push_back(p);
  }
  points.push_back(kSeg / 2);
  points.push_back(2 * kSeg + kSeg / 3);
  for (uint64_t first : points) {
    for (uint64_t last : points) {
      if (first > last || last >= size) continue;
      SCOPED_TRACE(testing::Message() << first << "-" << last);
      auto got = OpenRange(key, "c", size, sealed, first, last, 10000);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(*got, plain.substr(first, last - first + 1));
    }
  }
}

TEST(Seal, RangePlansReadOnlyTheSegmentsTouched) {
  struct Case {
    uint64_t size, first, last;
    uint64_t first_segment, sealed_offset, sealed_length, skip;
  };
  const uint64_t size = 3 * kSeg + 100;
  const Case cases[] = {
      {size, 0, 0, 0, 0, kSealed, 0},
      {size, kSeg - 1, kSeg, 0, 0, 2 * kSealed, kSeg - 1},
      {size, kSeg, kSeg, 1, kSealed, kSealed, 0},
      {size, kSeg + 5, 2 * kSeg - 1, 1, kSealed, kSealed, 5},
      {size, 3 * kSeg, size - 1, 3, 3 * kSealed, 116, 0},
      {size, 0, size - 1, 0, 0, SealedSize(size), 0},
      {10, 3, 4, 0, 0, 26, 3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << c.first << "-" << c.last << " of " << c.size);
    auto plan = PlanRange(c.size, c.first, c.last);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->first_segment, c.first_segment);
    EXPECT_EQ(plan->sealed_offset, c.sealed_offset);
    EXPECT_EQ(plan->sealed_length, c.sealed_length);
    EXPECT_EQ(plan->skip, c.skip);
    EXPECT_EQ(plan->plaintext_length, c.last - c.first + 1);
  }
}

TEST(Seal, RangesOutsideTheObjectAreInvalid) {
  struct Case {
    uint64_t size, first, last;
  };
  for (const Case& c : {Case{0, 0, 0}, Case{10, 5, 4}, Case{10, 0, 10}, Case{10, 10, 10}}) {
    auto plan = PlanRange(c.size, c.first, c.last);
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), Code::kInvalidArgument);
  }
}

// Every kind of damage to a stored 3.5-segment object: the whole GET and a ranged GET over the
// damage both fail with kAuthFailed and release nothing of the damaged segment.
TEST(Seal, TamperingFailsCleanly) {
  const DataKey key = TestKey(4);
  const uint64_t size = 3 * kSeg + kSeg / 2;
  const std::string plain = Plaintext(size);
  const std::string sealed = SealInPieces(key, "bucket/key/v1", plain, 0);

  struct Case {
    std::string name;
    std::string stored;  // what the store hands back
    std::string context = "bucket/key/v1";
    uint64_t size_in_record = 0;  // 0: the true size
  };
  std::vector<Case> cases;
  // One flipped byte at the start, middle and tag of every segment.
  for (uint64_t seg = 0; seg < 4; ++seg) {
    const uint64_t seg_len = seg < 3 ? kSealed : kSeg / 2 + 16;
    for (uint64_t off : {uint64_t{0}, seg_len / 2, seg_len - 1}) {
      Case c{"flip segment " + std::to_string(seg) + " byte " + std::to_string(off), sealed};
      c.stored[seg * kSealed + off] ^= 0x01;
      cases.push_back(c);
    }
  }
  {
    Case c{"swap segments 0 and 1", sealed};
    c.stored.replace(0, kSealed, sealed, kSealed, kSealed);
    c.stored.replace(kSealed, kSealed, sealed, 0, kSealed);
    cases.push_back(c);
  }
  {  // Dropping the last segment, with the record's size made to agree: the new last segment
     // was sealed as not-last.
    Case c{"drop last segment", sealed.substr(0, 3 * kSealed)};
    c.size_in_record = 3 * kSeg;
    cases.push_back(c);
  }
  {  // Appending a segment sealed under the same key elsewhere, size made to agree.
    const std::string other = SealInPieces(key, "bucket/key/v1", Plaintext(kSeg + 10), 0);
    Case c{"append", sealed.substr(0, 3 * kSealed) + other.substr(kSealed)};
    c.size_in_record = 3 * kSeg + 10;
    cases.push_back(c);
  }
  cases.push_back(Case{"wrong context", sealed, "bucket/key/v2"});
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    const uint64_t record_size = c.size_in_record ? c.size_in_record : size;
    ASSERT_EQ(c.stored.size(), SealedSize(record_size));
    auto whole = OpenAll(key, c.context, record_size, c.stored);
    ASSERT_FALSE(whole.ok());
    EXPECT_EQ(whole.status().code(), Code::kAuthFailed);
    // Streaming: bytes of the segments before the damage may be released; the sink never sees a
    // byte that differs from the plaintext.
    std::string released;
    OpenReader r(key, c.context, PlanWhole(record_size), [&](std::string_view p) {
      released.append(p);
      return true;
    });
    Status s = r.Update(c.stored);
    if (s.ok()) s = r.Finish();
    EXPECT_EQ(s.code(), Code::kAuthFailed);
    EXPECT_EQ(released, plain.substr(0, released.size()));
    // The failure sticks.
    EXPECT_EQ(r.Finish().code(), Code::kAuthFailed);
  }
}

TEST(Seal, WrongDataKeyFails) {
  const std::string plain = Plaintext(kSeg + 1);
  const std::string sealed = SealInPieces(TestKey(5), "c", plain, 0);
  auto r = OpenAll(TestKey(6), "c", plain.size(), sealed);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kAuthFailed);
  auto range = OpenRange(TestKey(6), "c", plain.size(), sealed, kSeg, kSeg, 100);
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.status().code(), Code::kAuthFailed);
}

TEST(Seal, EmptyObjectTruncatedToNothingFails) {
  const DataKey key = TestKey(7);
  const std::string sealed = SealInPieces(key, "c", "", 0);
  ASSERT_EQ(sealed.size(), 16u);
  EXPECT_TRUE(OpenAll(key, "c", 0, sealed).ok());
  // The store lost the bytes: OpenAll refuses the size, the reader refuses at Finish.
  EXPECT_EQ(OpenAll(key, "c", 0, "").status().code(), Code::kAuthFailed);
  OpenReader r(key, "c", PlanWhole(0), [](std::string_view) { return true; });
  EXPECT_EQ(r.Finish().code(), Code::kAuthFailed);
}

TEST(Seal, TruncatedReadFailsAtFinish) {
  const DataKey key = TestKey(8);
  const std::string plain = Plaintext(2 * kSeg);
  const std::string sealed = SealInPieces(key, "c", plain, 0);
  std::string released;
  OpenReader r(key, "c", PlanWhole(plain.size()), [&](std::string_view p) {
    released.append(p);
    return true;
  });
  ASSERT_TRUE(r.Update(std::string_view(sealed).substr(0, kSealed + 100)).ok());
  EXPECT_EQ(released, plain.substr(0, kSeg));  // only the verified segment
  EXPECT_EQ(r.Finish().code(), Code::kAuthFailed);
}

TEST(Seal, ReaderRefusesMoreBytesThanTheRange) {
  const DataKey key = TestKey(9);
  const std::string sealed = SealInPieces(key, "c", "abc", 0);
  OpenReader r(key, "c", PlanWhole(3), [](std::string_view) { return true; });
  EXPECT_EQ(r.Update(sealed + "x").code(), Code::kInvalidArgument);
}

TEST(Seal, SinkFailureStopsTheWriterAndReader) {
  const DataKey key = TestKey(10);
  SealWriter w(key, "c", [](std::string_view) { return false; });
  ASSERT_TRUE(w.Update("abc").ok());  // buffered: nothing sealed yet
  EXPECT_EQ(w.Finish().code(), Code::kSinkFailed);
  EXPECT_EQ(w.Update("x").code(), Code::kSinkFailed);  // the failure sticks

  SealWriter big(key, "c", [](std::string_view) { return false; });
  EXPECT_EQ(big.Update(Plaintext(kSeg + 1)).code(), Code::kSinkFailed);

  const std::string sealed = SealInPieces(key, "c", "abc", 0);
  OpenReader r(key, "c", PlanWhole(3), [](std::string_view) { return false; });
  EXPECT_EQ(r.Update(sealed).code(), Code::kSinkFailed);
}

TEST(Seal, CallsAfterFinishAreInvalid) {
  const DataKey key = TestKey(11);
  SealWriter w(key, "c", [](std::string_view) { return true; });
  ASSERT_TRUE(w.Finish().ok());
  EXPECT_EQ(w.Update("x").code(), Code::kInvalidArgument);
  EXPECT_EQ(w.Finish().code(), Code::kInvalidArgument);

  const std::string sealed = SealInPieces(key, "c", "", 0);
  OpenReader r(key, "c", PlanWhole(0), [](std::string_view) { return true; });
  ASSERT_TRUE(r.Update(sealed).ok());
  ASSERT_TRUE(r.Finish().ok());
  EXPECT_EQ(r.Update("").code(), Code::kInvalidArgument);
  EXPECT_EQ(r.Finish().code(), Code::kInvalidArgument);
}

}  // namespace
// ---- SegmentOpener: whole segments into the caller's memory.

// The sealed bytes of segment `index` of `sealed`.
std::string_view SealedSegment(const std::string& sealed, uint64_t index) {
  return std::string_view(sealed).substr(index * kSealed, kSealed);
}

TEST(SegmentOpener, OpensEverySegmentInAnyOrder) {
  const DataKey key = TestKey(20);
  for (uint64_t size : {uint64_t{0}, uint64_t{1}, kSeg - 1, kSeg, kSeg + 1, 3 * kSeg + 77}) {
    SCOPED_TRACE(size);
    const std::string plain = Plaintext(size);
    const std::string sealed = SealInPieces(key, "b/k", plain, 0);
    SegmentOpener opener(key, "b/k", size);
    ASSERT_EQ(opener.segment_count(), SegmentCount(size));
    // Backwards: the opener keeps no state between segments.
    for (uint64_t i = opener.segment_count(); i-- > 0;) {
      const size_t n = opener.PlaintextBytes(i);
      EXPECT_EQ(n, std::min<uint64_t>(kSeg, size - i * kSeg));
      std::string out(n + 1, '#');  // one guard byte after the segment
      ASSERT_TRUE(opener.Open(i, SealedSegment(sealed, i).substr(0, n + 16), out.data()).ok());
      EXPECT_EQ(out.substr(0, n), plain.substr(i * kSeg, n));
      EXPECT_EQ(out[n], '#');
    }
  }
}

TEST(SegmentOpener, DamageFailsAndZeroesTheOutput) {
  const DataKey key = TestKey(21);
  const std::string plain = Plaintext(2 * kSeg + 5);
  const std::string sealed = SealInPieces(key, "b/k", plain, 0);
  SegmentOpener opener(key, "b/k", plain.size());
  for (size_t off : {size_t{0}, kSeg / 2, kSeg + 15}) {  // ciphertext start, middle, tag
    SCOPED_TRACE(off);
    std::string damaged(SealedSegment(sealed, 1));
    damaged[off] ^= 0x01;
    std::string out(kSeg, '#');
    Status s = opener.Open(1, damaged, out.data());
    EXPECT_EQ(s.code(), Code::kAuthFailed);
    EXPECT_EQ(out, std::string(kSeg, '\0'));  // no unauthenticated byte stays
  }
  // A failure does not poison the opener: the good segment still opens.
  std::string out(kSeg, '#');
  ASSERT_TRUE(opener.Open(1, SealedSegment(sealed, 1), out.data()).ok());
  EXPECT_EQ(out, plain.substr(kSeg, kSeg));
}

TEST(SegmentOpener, WrongIndexLastFlagContextOrKeyFails) {
  const DataKey key = TestKey(22);
  const std::string plain = Plaintext(2 * kSeg);
  const std::string sealed = SealInPieces(key, "b/k", plain, 0);
  std::string out(kSeg, '#');
  {  // Segment 1's bytes at index 0 (a swap).
    SegmentOpener opener(key, "b/k", plain.size());
    EXPECT_EQ(opener.Open(0, SealedSegment(sealed, 1), out.data()).code(), Code::kAuthFailed);
  }
  {  // A record claiming a third segment: segment 1 was sealed as the last, opened as not.
    SegmentOpener opener(key, "b/k", 3 * kSeg);
    EXPECT_TRUE(opener.Open(0, SealedSegment(sealed, 0), out.data()).ok());
    EXPECT_EQ(opener.Open(1, SealedSegment(sealed, 1), out.data()).code(), Code::kAuthFailed);
  }
  {  // A record claiming one segment: segment 0 was sealed as not the last.
    SegmentOpener opener(key, "b/k", kSeg);
    EXPECT_EQ(opener.Open(0, SealedSegment(sealed, 0), out.data()).code(), Code::kAuthFailed);
  }
  {  // Moved to another object.
    SegmentOpener opener(key, "b/other", plain.size());
    EXPECT_EQ(opener.Open(0, SealedSegment(sealed, 0), out.data()).code(), Code::kAuthFailed);
  }
  {  // Another data key.
    SegmentOpener opener(TestKey(23), "b/k", plain.size());
    EXPECT_EQ(opener.Open(0, SealedSegment(sealed, 0), out.data()).code(), Code::kAuthFailed);
  }
}

TEST(SegmentOpener, BadIndexOrSizeIsInvalidArgument) {
  const DataKey key = TestKey(24);
  const std::string plain = Plaintext(kSeg + 100);
  const std::string sealed = SealInPieces(key, "c", plain, 0);
  SegmentOpener opener(key, "c", plain.size());
  std::string out(kSeg, '#');
  EXPECT_EQ(opener.Open(2, std::string_view(sealed).substr(kSealed), out.data()).code(),
            Code::kInvalidArgument);
  // The short last segment handed over with a byte missing, or a full one with a byte extra.
  EXPECT_EQ(opener.Open(1, std::string_view(sealed).substr(kSealed, 115), out.data()).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(opener.Open(0, std::string_view(sealed).substr(0, kSealed + 1), out.data()).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(out, std::string(kSeg, '#'));  // nothing written
}

}  // namespace cubby::crypt
