// The journal's JSON form of the run record (record/records.h), one
// encoder/decoder pair: the only place that knows how each line and a
// histogram are spelled in journal.jsonl (docs/results.md). Decoding is lenient, because the file
// may be torn or edited: a field missing or of the wrong type keeps its
// default, a number out of range reads as 0, and nothing throws.
#ifndef STAMPEDE_RECORD_RECORD_CODEC_H_
#define STAMPEDE_RECORD_RECORD_CODEC_H_

#include <nlohmann/json.hpp>
#include <optional>

#include "common/histogram.h"
#include "record/records.h"
#include "record/second.h"

namespace stampede::record {

using Json = nlohmann::json;

// {"sum_ns", "max_ns", "b": [[bucket index, count], ...]}
Json HistogramToJson(const Histogram& h);
void MergeHistogramJson(const Json& j, Histogram* h);

Json Encode(const Record& r);
// Empty for a line of a kind this version does not know (or not an object).
std::optional<Record> Decode(const Json& line);
std::optional<Record> DecodeText(const std::string& line);  // one line of journal.jsonl

Json EncodeSecond(const Second& s);
// A consistency anomaly's example, in a second line and a history check's.
Json EncodeAnomaly(const AnomalyExample& e);
AnomalyExample DecodeAnomaly(const Json& j);
bool IsSecond(const Json& line);
Second DecodeSecond(const Json& line);

// Lenient field readers for the other line kinds' readers.
uint64_t GetU64(const Json& line, const char* key, uint64_t fallback = 0);
double GetDouble(const Json& line, const char* key, double fallback = 0);
std::string GetString(const Json& line, const char* key, const std::string& fallback = "");
bool GetBool(const Json& line, const char* key, bool fallback = false);

}  // namespace stampede::record

#endif  // STAMPEDE_RECORD_RECORD_CODEC_H_
