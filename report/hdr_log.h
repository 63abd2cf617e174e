// latency.hlog: a run's latencies in HdrHistogram's interval log format
// (version 1.3, as YCSB, memtier_benchmark and NoSQLBench write it), so the
// HdrHistogram tools read them: HistogramLogProcessor, the plotters,
// hdr-histogram-js (docs/metrics.md, "Latency logs").
//
// Our histograms (common/histogram.h) have HdrHistogram's bucket layout
// for lowest discernible value 1 ns, highest trackable 2^36 - 1 ns and 2
// significant digits, index for index; each line is a histogram in the
// V2 compressed encoding (big-endian header, ZigZag LEB128 counts with
// runs of zeros, zlib), base64. Values are nanoseconds; Interval_Max is
// in milliseconds (the tools' default ratio of 10^6).
//
// Not thread-safe.
#ifndef STAMPEDE_REPORT_HDR_LOG_H_
#define STAMPEDE_REPORT_HDR_LOG_H_

#include <cstdint>
#include <string>

#include "common/histogram.h"
#include "record/records.h"

namespace stampede::report {

// One histogram as HdrHistogram's compressed V2 encoding, base64.
std::string EncodeCompressedHistogram(const Histogram& h);

class HdrLogWriter {
 public:
  // The header; start: the run's start (seconds since the epoch).
  explicit HdrLogWriter(double start_epoch_s);
  // A journal second: a line per op (Tag=PHASE/OP), then an untagged line
  // with the second's ops merged. Late lines and empty seconds add nothing.
  void Add(const record::Second& second);
  const std::string& text() const { return text_; }

 private:
  void Line(const std::string& tag, double start, double length, const Histogram& h);
  std::string text_;
};

}  // namespace stampede::report

#endif  // STAMPEDE_REPORT_HDR_LOG_H_
