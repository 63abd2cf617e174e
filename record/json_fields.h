// Reading fields out of journal JSON leniently (record/record_codec.h):
// the helpers the codec's files share. Internal to record/.
#ifndef STAMPEDE_RECORD_JSON_FIELDS_H_
#define STAMPEDE_RECORD_JSON_FIELDS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "record/record_codec.h"

namespace stampede::record {

inline uint64_t AsU64(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer()) return v.get<int64_t>() < 0 ? 0 : uint64_t(v.get<int64_t>());
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && d >= 0 && d < 1.8e19 ? uint64_t(d) : 0;
  }
  return 0;
}

inline const Json* Field(const Json& line, const char* key) {
  if (!line.is_object()) return nullptr;
  auto it = line.find(key);
  return it == line.end() ? nullptr : &*it;
}

inline std::vector<std::string> Strings(const Json& line, const char* key) {
  std::vector<std::string> out;
  const Json* v = Field(line, key);
  if (!v || !v->is_array()) return out;
  for (const Json& s : *v) {
    if (s.is_string()) out.push_back(s.get<std::string>());
  }
  return out;
}

// At most 1,000 whole numbers from an array (the writers keep 20).
inline std::vector<int64_t> Ids(const Json& line, const char* key) {
  std::vector<int64_t> out;
  const Json* v = Field(line, key);
  if (!v || !v->is_array()) return out;
  for (const Json& id : *v) {
    if (id.is_number_integer() && out.size() < 1000) out.push_back(id.get<int64_t>());
  }
  return out;
}

inline int64_t GetI64(const Json& line, const char* key, int64_t fallback) {
  const Json* v = Field(line, key);
  if (!v || !v->is_number()) return fallback;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_unsigned()) return v->get<uint64_t>() > uint64_t(INT64_MAX) ? fallback : int64_t(v->get<uint64_t>());
  const double d = v->get<double>();
  return std::isfinite(d) && std::fabs(d) < 9e18 ? int64_t(d) : fallback;
}

inline uint32_t GetU32(const Json& line, const char* key) {
  return uint32_t(std::min<uint64_t>(GetU64(line, key), UINT32_MAX));
}

template <typename T, typename Fn>
inline void DecodeMap(const Json& line, const char* key, std::map<std::string, T>* out, Fn&& read) {
  const Json* m = Field(line, key);
  if (!m || !m->is_object()) return;
  for (auto it = m->begin(); it != m->end(); ++it) read(it.value(), &(*out)[it.key()]);
}

}  // namespace stampede::record

#endif  // STAMPEDE_RECORD_JSON_FIELDS_H_
