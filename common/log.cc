#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "common/mutex.h"

namespace stampede {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
Mutex g_prefix_mu;
std::string g_prefix ABSL_GUARDED_BY(g_prefix_mu);
constexpr const char* kLevelNames[] = {"debug", "info", "warn", "error"};
}  // namespace

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }

void SetLogPrefix(const std::string& prefix) {
  MutexLock lock(g_prefix_mu);
  g_prefix = prefix;
}

void LogLine(LogLevel level, const std::string& line) {
  if (static_cast<int>(level) < g_level.load()) return;
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  int ms =
      static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm;
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
  std::string prefix;
  {
    MutexLock lock(g_prefix_mu);
    prefix = g_prefix;
  }
  char head[96];
  std::snprintf(head, sizeof(head), "%s.%03d %-5s %s%s", stamp, ms, kLevelNames[static_cast<int>(level)],
                prefix.c_str(), prefix.empty() ? "" : ": ");
  std::string out = head + line + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, out.data(), out.size());
  (void)ignored;
}

}  // namespace stampede
