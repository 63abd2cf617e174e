// Minimal leveled logging to stderr. Thread-safe (one write per line).
// Never pass secrets: there is no redaction layer below this.
#ifndef STAMPEDE_COMMON_LOG_H_
#define STAMPEDE_COMMON_LOG_H_

#include <sstream>
#include <string>

namespace stampede {

enum class LogLevel { kDebug, kInfo, kWarn, kError };

void SetLogLevel(LogLevel level);
void SetLogPrefix(const std::string& prefix);  // e.g. "agent a1"
void LogLine(LogLevel level, const std::string& line);

namespace internal {
class LogMessage {
 public:
  explicit LogMessage(LogLevel level) : level_(level) {}
  ~LogMessage() { LogLine(level_, stream_.str()); }
  std::ostringstream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};
}  // namespace internal

}  // namespace stampede

#define SLOG(level) ::stampede::internal::LogMessage(::stampede::LogLevel::level).stream()

#endif  // STAMPEDE_COMMON_LOG_H_
