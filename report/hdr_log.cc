#include "report/hdr_log.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

namespace stampede::report {
namespace {

// HdrHistogram's V2 cookies, with the word size (9 bytes) folded in.
constexpr uint32_t kEncodingCookie = 0x1c849303 | 0x10;
constexpr uint32_t kCompressedCookie = 0x1c849304 | 0x10;
constexpr int kSignificantDigits = 2;

void PutU32(std::vector<uint8_t>* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(uint8_t(v >> shift));
}
void PutU64(std::vector<uint8_t>* out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8) out->push_back(uint8_t(v >> shift));
}

// ZigZag, then LEB128 with at most 9 bytes (the ninth holds 8 bits), as
// HdrHistogram's ZigZagEncoding.putLong.
void PutZigZag(std::vector<uint8_t>* out, int64_t value) {
  uint64_t v = (uint64_t(value) << 1) ^ uint64_t(value >> 63);
  for (int i = 0; i < 8; ++i) {
    if (v < 0x80) {
      out->push_back(uint8_t(v));
      return;
    }
    out->push_back(uint8_t((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(uint8_t(v));
}

std::vector<uint8_t> Uncompressed(const Histogram& h) {
  std::vector<uint8_t> out;
  PutU32(&out, kEncodingCookie);
  PutU32(&out, 0);  // payload length, set below
  PutU32(&out, 0);  // normalizing index offset
  PutU32(&out, kSignificantDigits);
  PutU64(&out, 1);                                 // lowest discernible value
  PutU64(&out, HistogramLayout::kMaxTrackableNs);  // highest trackable value
  double ratio = 1.0;
  uint64_t bits;
  std::memcpy(&bits, &ratio, sizeof(bits));
  PutU64(&out, bits);
  const size_t payload_start = out.size();
  std::vector<uint64_t> counts(size_t(HistogramLayout::kNumBuckets), 0);
  int limit = 0;
  h.ForEachBucket([&](int index, uint64_t count) {
    counts[size_t(index)] = count;
    limit = index + 1;
  });
  for (int i = 0; i < limit;) {
    const uint64_t count = counts[size_t(i++)];
    if (count > 0) {
      PutZigZag(&out, int64_t(count));
      continue;
    }
    int64_t zeros = 1;
    while (i < limit && counts[size_t(i)] == 0) ++zeros, ++i;
    PutZigZag(&out, zeros > 1 ? -zeros : 0);
  }
  const uint32_t payload = uint32_t(out.size() - payload_start);
  for (int k = 0; k < 4; ++k) out[4 + size_t(k)] = uint8_t(payload >> (24 - 8 * k));
  return out;
}

std::string Base64(const std::vector<uint8_t>& in) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    const uint32_t n = uint32_t(in[i]) << 16 | (i + 1 < in.size() ? uint32_t(in[i + 1]) << 8 : 0) |
                       (i + 2 < in.size() ? uint32_t(in[i + 2]) : 0);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

}  // namespace

std::string EncodeCompressedHistogram(const Histogram& h) {
  const std::vector<uint8_t> raw = Uncompressed(h);
  uLongf size = compressBound(uLong(raw.size()));
  std::vector<uint8_t> out(8 + size_t(size));
  if (compress2(out.data() + 8, &size, raw.data(), uLong(raw.size()), Z_DEFAULT_COMPRESSION) != Z_OK) return "";
  out.resize(8 + size_t(size));
  std::vector<uint8_t> header;
  PutU32(&header, kCompressedCookie);
  PutU32(&header, uint32_t(size));
  std::copy(header.begin(), header.end(), out.begin());
  return Base64(out);
}

HdrLogWriter::HdrLogWriter(double start_epoch_s) {
  char when[64] = "";
  const std::time_t t = std::time_t(start_epoch_s);
  std::tm tm{};
  if (gmtime_r(&t, &tm)) std::strftime(when, sizeof(when), "%a %b %d %H:%M:%S UTC %Y", &tm);
  char buf[256];
  std::snprintf(buf, sizeof(buf),
                "#[Histogram log format version 1.3]\n#[StartTime: %.3f (seconds since epoch), %s]\n"
                "#[BaseTime: %.3f (seconds since epoch)]\n"
                "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
                start_epoch_s, when, start_epoch_s);
  text_ = buf;
}

void HdrLogWriter::Line(const std::string& tag, double start, double length, const Histogram& h) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%.3f,%.3f,%.3f,", start, length, double(h.max_ns()) / 1e6);
  text_ += (tag.empty() ? "" : "Tag=" + tag + ",") + buf + EncodeCompressedHistogram(h) + "\n";
}

void HdrLogWriter::Add(const record::Second& second) {
  if (second.late || second.Count() == 0) return;
  const double start = second.t - second.interval_s;
  Histogram all;
  for (const auto& [name, op] : second.ops) {
    if (op.latency.count() == 0) continue;
    Line(second.phase + "/" + name, start, second.interval_s, op.latency);
    all.Merge(op.latency);
  }
  Line("", start, second.interval_s, all);
}

}  // namespace stampede::report
