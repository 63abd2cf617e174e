// The isolation levels a plan can name (target.isolation), how each SQL
// flavor sets one for a session, and which anomalies of an append
// history each forbids (docs/consistency.md).
#ifndef STAMPEDE_COMMON_ISOLATION_H_
#define STAMPEDE_COMMON_ISOLATION_H_

#include <string>
#include <vector>

namespace stampede {

// read-committed, repeatable-read, snapshot, serializable.
const std::vector<std::string>& IsolationLevels();

// The level's name in flavor's SET TRANSACTION ("REPEATABLE READ"), or ""
// with *why (if not null) when the flavor has no such level.
std::string IsolationSql(const std::string& level, const std::string& flavor, std::string* why);

// The level flavor's servers run at by default (what the checks judge a
// history against when the plan names none); "" for non-SQL flavors.
std::string DefaultIsolation(const std::string& flavor);

// Whether level forbids an anomaly kind of the history checks: cycles by
// Adya's definitions (G0 and G1 everywhere, G-single from
// repeatable-read/snapshot up, G2-item at serializable alone), each level
// in its strong form (a `_process` or `_realtime` cycle as its kind);
// every other kind (lost, stale_read, internal, ...) at every level.
bool IsolationForbids(const std::string& level, const std::string& kind);

// "read committed".
std::string IsolationWords(const std::string& level);

}  // namespace stampede

#endif  // STAMPEDE_COMMON_ISOLATION_H_
