#include "drivers/redis_errors.h"

namespace stampede::drivers {
namespace {

struct RedisRule {
  std::string_view prefix;
  Outcome outcome;
};

constexpr RedisRule kRedisRules[] = {
    {"MOVED", Outcome::kRetryable},
    {"ASK", Outcome::kRetryable},
    {"TRYAGAIN", Outcome::kRetryable},
    {"BUSY", Outcome::kRetryable},
    {"CLUSTERDOWN", Outcome::kUnavailable},
    {"LOADING", Outcome::kUnavailable},
    {"MASTERDOWN", Outcome::kUnavailable},
    {"READONLY", Outcome::kUnavailable},
    // Writes refused, not applied, until the server can write again: a
    // full disk (stop-writes-on-bgsave-error) or memory at maxmemory.
    {"MISCONF", Outcome::kUnavailable},
    {"OOM", Outcome::kUnavailable},
    {"NOAUTH", Outcome::kFatal},
    {"WRONGPASS", Outcome::kFatal},
    {"NOPERM", Outcome::kFatal},
    {"WRONGTYPE", Outcome::kFatal},
};

}  // namespace

Outcome ClassifyRedisError(std::string_view reply) {
  std::string_view word = reply.substr(0, reply.find(' '));
  for (const RedisRule& r : kRedisRules) {
    if (word == r.prefix) return r.outcome;
  }
  return Outcome::kFatal;
}

}  // namespace stampede::drivers
