// Where Redis error replies become outcomes (redis, redis-cluster).
#ifndef STAMPEDE_DRIVERS_REDIS_ERRORS_H_
#define STAMPEDE_DRIVERS_REDIS_ERRORS_H_

#include <string_view>

#include "common/outcome.h"

namespace stampede::drivers {

// Classifies an error reply by its leading word ("MOVED 3999 127.0.0.1:6381").
Outcome ClassifyRedisError(std::string_view reply);
// MISCONF: the snapshot could not be written (stop-writes-on-bgsave-error),
// most often for a full disk.
inline bool IsRedisDiskFull(std::string_view reply) { return reply.substr(0, 8) == "MISCONF "; }

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_ERRORS_H_
