// What an agent lets a plan make it do, from its own local config:
//
//   allow:
//     targets:                          # the databases it may connect to
//       - endpoints: [10.0.0.0/24, db.example.com:5432, cache.example.com]
//         password_env: [DB_PASSWORD]   # variables it may read a password from for them
//     setup: false                      # the plan's setup: and cleanup: statements
//     custom: false                     # workload: custom (statements from the plan)
//
// An endpoint entry is HOST:PORT (exactly that), HOST (any port), an IP
// network in CIDR form (any address in it, any port; host names in a plan
// are not resolved to match one) or * (anything). A plan endpoint must
// match an entry of some target, and the plan's password_env must be listed
// in that target. setup and custom default to true. Without an `allow:`
// section an agent goes wherever a plan sends it (and says so when it
// starts), as before allow-lists existed.
//
// A plan that asks for more is refused before any connection, with the
// config line to change.
#ifndef STAMPEDE_AGENT_ALLOW_LIST_H_
#define STAMPEDE_AGENT_ALLOW_LIST_H_

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "common/status.h"
#include "proto/stampede.pb.h"

namespace stampede::agent {

class ConfigProblems;

class AllowList {
 public:
  // Nothing configured: everything is allowed.
  AllowList() = default;
  // `allow:` of an agent config; every problem added to *problems.
  static AllowList FromYaml(const YAML::Node& allow, ConfigProblems* problems);

  bool configured() const { return configured_; }
  // Ok, or why the plan may not run here, naming the config line to change.
  Status Check(const v1::Plan& plan) const;

 private:
  struct Target {
    std::vector<std::string> endpoints;
    std::vector<std::string> password_env;
    std::string at;           // FILE:LINE:COL: of its endpoints
    std::string password_at;  // FILE:LINE:COL: of its password_env (or of the target)
    std::string name;         // allow.targets[N]
  };
  void ReadTarget(const YAML::Node& e, const std::string& name, ConfigProblems* problems);
  Status CheckTarget(const v1::Target& target) const;
  // One endpoint the plan names (field: where), and env, the variable of
  // the password it would be sent, if any (env_of.password_env).
  Status CheckEndpoint(const std::string& endpoint, const std::string& field, const std::string& env_of,
                       const std::string& env) const;
  Status CheckStatements(const v1::Plan& plan) const;

  bool configured_ = false;
  std::vector<Target> targets_;
  bool setup_ = true;
  bool custom_ = true;
  std::string file_;
  std::string allow_at_;    // FILE:LINE:COL: of allow:
  std::string targets_at_;  // of allow.targets (or allow:)
  std::string setup_at_;
  std::string custom_at_;
};

// HOST:PORT (or [V6]:PORT) against one allow-list entry.
bool EndpointAllowed(const std::string& entry, const std::string& endpoint);

}  // namespace stampede::agent

#endif  // STAMPEDE_AGENT_ALLOW_LIST_H_
