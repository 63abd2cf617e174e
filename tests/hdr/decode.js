// Reads a latency.hlog with hdr-histogram-js (a published HdrHistogram
// implementation, not stampede's code) and prints, per tag ("" for the
// untagged lines), the lines read, the total count, p50 and p99 in ns and
// the largest value, as JSON: what integration.hdr_log compares with
// summary.json.
//   node decode.js latency.hlog
"use strict";
const fs = require("fs");
const hdr = require("hdr-histogram-js");

const text = fs.readFileSync(process.argv[2], "utf8");
const reader = new hdr.HistogramLogReader(text, 64);
const merged = {};
let h;
while ((h = reader.nextIntervalHistogram()) !== null) {
  const tag = h.tag && h.tag !== "NO TAG" ? h.tag : "";  // its name for an untagged line
  if (!merged[tag]) {
    merged[tag] = { lines: 0, histogram: hdr.build({ bitBucketSize: 64, numberOfSignificantValueDigits: 2 }) };
  }
  merged[tag].lines++;
  merged[tag].histogram.add(h);
}
const out = {};
for (const [tag, m] of Object.entries(merged)) {
  out[tag] = {
    lines: m.lines,
    count: m.histogram.totalCount,
    p50_ns: m.histogram.getValueAtPercentile(50),
    p99_ns: m.histogram.getValueAtPercentile(99),
    max_ns: m.histogram.maxValue,
  };
}
console.log(JSON.stringify(out));
