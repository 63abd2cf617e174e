#include "drivers/statement_template.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>

namespace stampede::drivers {

StatusOr<std::vector<Segment>> ParsePlaceholders(std::string_view text, int max_params) {
  std::vector<Segment> out;
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '$') {
      literal += text[i];
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '$') {
      literal += '$';
      ++i;
      continue;
    }
    size_t j = i + 1;
    int64_t n = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      if (n <= max_params) n = n * 10 + (text[j] - '0');  // past the range: stop counting, no overflow
      ++j;
    }
    if (j == i + 1) {  // a lone '$' (e.g. PostgreSQL dollar quoting): literal
      literal += '$';
      continue;
    }
    if (n < 1 || n > max_params) {
      const std::string_view digits = text.substr(i + 1, std::min<size_t>(j - i - 1, 20));
      return Status::Error("placeholder $" + std::string(digits) + (j - i - 1 > 20 ? "..." : "") + " out of range 1.." +
                           std::to_string(max_params));
    }
    if (!literal.empty()) out.push_back({std::move(literal), -1});
    literal.clear();
    out.push_back({"", int(n) - 1});
    i = j - 1;
  }
  if (!literal.empty()) out.push_back({std::move(literal), -1});
  return out;
}

StatusOr<std::string> ToQuestionMarks(std::string_view text, int max_params, std::vector<int>* order) {
  auto segments = ParsePlaceholders(text, max_params);
  if (!segments.ok()) return segments.status();
  std::string out;
  order->clear();
  for (const Segment& s : *segments) {
    if (s.param < 0) {
      out += s.literal;
    } else {
      out += '?';
      order->push_back(s.param);
    }
  }
  return out;
}

void AppendParam(const Param& p, std::string* out) {
  if (!p.is_int) {
    out->append(p.s);
    return;
  }
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), p.i);
  (void)ec;
  out->append(buf, end);
}

}  // namespace stampede::drivers
