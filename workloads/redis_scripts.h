// Redis commands (as one statement line each) that the workloads share:
// deleting and counting the keys under a prefix with SCAN inside a Lua
// script, so they run server-side. Keyless: on a cluster they run on every
// master (counts are summed by the cluster driver).
#ifndef STAMPEDE_WORKLOADS_REDIS_SCRIPTS_H_
#define STAMPEDE_WORKLOADS_REDIS_SCRIPTS_H_

#include <string>

namespace stampede::workloads {

// Deletes every key matching PREFIX:*, returns how many.
inline std::string RedisDeletePrefix(const std::string& prefix) {
  return "EVAL \"local c='0' local n=0 repeat local r=redis.call('SCAN',c,'MATCH',ARGV[1],"
         "'COUNT',1000) c=r[1] for _,k in ipairs(r[2]) do redis.call('DEL',k) n=n+1 end "
         "until c=='0' return n\" 0 " +
         prefix + ":*";
}

// Counts the keys matching PREFIX:*.
inline std::string RedisCountPrefix(const std::string& prefix) {
  return "EVAL \"local c='0' local n=0 repeat local r=redis.call('SCAN',c,'MATCH',ARGV[1],"
         "'COUNT',1000) c=r[1] n=n+#r[2] until c=='0' return n\" 0 " +
         prefix + ":*";
}

}  // namespace stampede::workloads

#endif  // STAMPEDE_WORKLOADS_REDIS_SCRIPTS_H_
