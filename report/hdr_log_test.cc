#include "report/hdr_log.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <vector>

namespace stampede::report {
namespace {

std::vector<uint8_t> FromBase64(const std::string& s) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    const int v = value(c);
    if (v < 0) break;
    acc = acc << 6 | uint32_t(v);
    bits += 6;
    if (bits >= 8) out.push_back(uint8_t(acc >> (bits -= 8)));
  }
  return out;
}

uint32_t U32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | b[at + 3];
}

// The encoding, byte for byte, as HdrHistogram's V2 format lays it out
// (the third-party decoder's test is integration.hdr_log).
TEST(HdrLogTest, CompressedV2EncodingByteForByte) {
  Histogram h;
  h.Record(1);
  h.RecordN(3, 2);
  const std::vector<uint8_t> c = FromBase64(EncodeCompressedHistogram(h));
  ASSERT_GE(c.size(), 8u);
  EXPECT_EQ(U32(c, 0), 0x1c849314u);  // "HIST" in base64
  EXPECT_EQ(U32(c, 4), c.size() - 8);
  std::vector<uint8_t> raw(1024);
  uLongf size = raw.size();
  ASSERT_EQ(uncompress(raw.data(), &size, c.data() + 8, uLong(c.size() - 8)), Z_OK);
  raw.resize(size);
  ASSERT_EQ(raw.size(), 40u + 4u);
  EXPECT_EQ(U32(raw, 0), 0x1c849313u);
  EXPECT_EQ(U32(raw, 4), 4u);   // payload bytes
  EXPECT_EQ(U32(raw, 8), 0u);   // normalizing index offset
  EXPECT_EQ(U32(raw, 12), 2u);  // significant digits
  EXPECT_EQ(U32(raw, 16), 0u);
  EXPECT_EQ(U32(raw, 20), 1u);  // lowest discernible value
  EXPECT_EQ(U32(raw, 24), 0xfu);
  EXPECT_EQ(U32(raw, 28), 0xffffffffu);  // highest trackable: 2^36 - 1
  EXPECT_EQ(U32(raw, 32), 0x3ff00000u);  // 1.0
  // Counts [0, 1, 0, 2]: a lone zero is 0, counts are ZigZag (1 -> 2).
  EXPECT_EQ(std::vector<uint8_t>(raw.begin() + 40, raw.end()), (std::vector<uint8_t>{0, 2, 0, 4}));
  // A run of zeros is one negative number: 300 zeros -> ZigZag 599.
  Histogram far;
  far.Record(300);  // index 278: 278 zeros before it
  const std::vector<uint8_t> f = FromBase64(EncodeCompressedHistogram(far));
  raw.assign(1024, 0);
  size = raw.size();
  ASSERT_EQ(uncompress(raw.data(), &size, f.data() + 8, uLong(f.size() - 8)), Z_OK);
  EXPECT_EQ(U32(raw, 4), 3u);
  EXPECT_EQ(raw[40], uint8_t((555 & 0x7f) | 0x80));  // -278 -> 555
  EXPECT_EQ(raw[41], uint8_t(555 >> 7));
  EXPECT_EQ(raw[42], 2);
}

TEST(HdrLogTest, ALinePerOpAndOneMergedPerSecond) {
  HdrLogWriter w(1764753826.0);
  record::Second s;
  s.phase = "mixed";
  s.t = 3.0;
  s.interval_s = 1.0;
  s.ops["read"].outcomes[0] = 2;
  s.ops["read"].latency.RecordN(1500000, 2);
  s.ops["write"].outcomes[0] = 1;
  s.ops["write"].latency.Record(2500000);
  w.Add(s);
  const std::string& t = w.text();
  EXPECT_EQ(t.rfind("#[Histogram log format version 1.3]\n#[StartTime: 1764753826.000 (seconds since epoch), ", 0), 0u)
      << t;
  EXPECT_NE(t.find("\n#[BaseTime: 1764753826.000 (seconds since epoch)]\n"), std::string::npos);
  EXPECT_NE(t.find("\nTag=mixed/read,2.000,1.000,1.500,HIST"), std::string::npos) << t;
  EXPECT_NE(t.find("\nTag=mixed/write,2.000,1.000,2.500,HIST"), std::string::npos) << t;
  EXPECT_NE(t.find("\n2.000,1.000,2.500,HIST"), std::string::npos) << t;
}

}  // namespace
}  // namespace stampede::report
