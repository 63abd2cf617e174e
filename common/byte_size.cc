#include "common/byte_size.h"

#include <charconv>
#include <string>

namespace stampede {

StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  const Status bad = Status::Invalid("expected a size like 256MB, 64KiB or 1G, found '" + std::string(text) + "'");
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr == text.data()) return bad;
  std::string_view unit(ptr, size_t(text.data() + text.size() - ptr));
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  if (unit == "K" || unit == "KB" || unit == "KiB") shift = 10;
  if (unit == "M" || unit == "MB" || unit == "MiB") shift = 20;
  if (unit == "G" || unit == "GB" || unit == "GiB") shift = 30;
  if (shift < 0) return bad;
  if (shift > 0 && value > (UINT64_MAX >> shift)) return Status::Invalid("'" + std::string(text) + "' is too large");
  return value << shift;
}

std::string FormatByteSize(uint64_t bytes) {
  static const char* const kUnits[] = {"", "KB", "MB", "GB"};
  int u = 0;
  while (u < 3 && bytes && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + kUnits[u];
}

}  // namespace stampede
