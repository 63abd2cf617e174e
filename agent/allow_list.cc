#include "agent/allow_list.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "agent/config_yaml.h"
#include "plan/plan_limits.h"

namespace stampede::agent {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

// "host:port", "[v6]:port", "v6" or "host" -> host, port ("" if none).
void SplitEndpoint(const std::string& e, std::string* host, std::string* port) {
  if (!e.empty() && e.front() == '[') {
    const size_t close = e.find(']');
    *host = e.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    *port = close != std::string::npos && close + 1 < e.size() && e[close + 1] == ':' ? e.substr(close + 2) : "";
    return;
  }
  const size_t colon = e.rfind(':');
  if (colon == std::string::npos || e.find(':') != colon) {  // no port, or a bare IPv6 address
    *host = e;
    port->clear();
    return;
  }
  *host = e.substr(0, colon);
  *port = e.substr(colon + 1);
}

// An IP address in binary: 4 or 16 bytes, or 0 if `s` is not one.
size_t ParseIp(const std::string& s, unsigned char out[16]) {
  if (inet_pton(AF_INET, s.c_str(), out) == 1) return 4;
  if (inet_pton(AF_INET6, s.c_str(), out) == 1) return 16;
  return 0;
}

bool InNetwork(const std::string& cidr, const std::string& host) {
  const size_t slash = cidr.find('/');
  unsigned char net[16], ip[16];
  const size_t n = ParseIp(cidr.substr(0, slash), net);
  if (n == 0 || ParseIp(host, ip) != n) return false;
  const int bits = std::atoi(cidr.c_str() + slash + 1);
  for (int i = 0; i < bits; ++i) {
    const unsigned char mask = static_cast<unsigned char>(0x80 >> (i % 8));
    if ((net[i / 8] & mask) != (ip[i / 8] & mask)) return false;
  }
  return true;
}

// "" if an allow-list entry is well formed, else what is wrong with it.
std::string EntryProblem(const std::string& entry) {
  if (entry == "*") return "";
  if (const size_t slash = entry.find('/'); slash != std::string::npos) {
    unsigned char net[16];
    const size_t n = ParseIp(entry.substr(0, slash), net);
    const std::string bits = entry.substr(slash + 1);
    const bool digits = !bits.empty() && bits.size() <= 3 && std::all_of(bits.begin(), bits.end(), ::isdigit);
    if (n == 0 || !digits || std::atoi(bits.c_str()) > int(n * 8)) return "expected a network like 10.0.0.0/24";
    return "";
  }
  std::string host, port;
  SplitEndpoint(entry, &host, &port);
  if (host.empty() || host.size() > 253) return "expected HOST, HOST:PORT, a network like 10.0.0.0/24, or *";
  if (!port.empty()) {
    const bool digits = port.size() <= 5 && std::all_of(port.begin(), port.end(), ::isdigit);
    if (!digits || std::atoi(port.c_str()) < 1 || std::atoi(port.c_str()) > 65535) return "expected a port 1-65535";
  }
  return "";
}

StatusOr<std::vector<std::string>> Strings(const YAML::Node& n, const std::string& file, const std::string& field) {
  if (!n.IsSequence()) return Status::Error(ConfigAt(file, n) + field + ": expected a list like [a, b]");
  std::vector<std::string> out;
  for (const YAML::Node& v : n) {
    if (!v.IsScalar() || v.Scalar().empty())
      return Status::Error(ConfigAt(file, v) + field + ": expected a non-empty string");
    out.push_back(v.Scalar());
  }
  return out;
}

StatusOr<bool> Bool(const YAML::Node& n, const std::string& file, const std::string& field) {
  bool b = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b)) {
    return Status::Error(ConfigAt(file, n) + field + ": expected true or false");
  }
  return b;
}

}  // namespace

bool EndpointAllowed(const std::string& entry, const std::string& endpoint) {
  if (entry == "*") return true;
  std::string host, port;
  SplitEndpoint(endpoint, &host, &port);
  if (entry.find('/') != std::string::npos) return InNetwork(entry, host);
  std::string entry_host, entry_port;
  SplitEndpoint(entry, &entry_host, &entry_port);
  if (Lower(entry_host) != Lower(host)) {
    // The same address written two ways (::1 and 0:0:0:0:0:0:0:1).
    unsigned char a[16], b[16];
    const size_t n = ParseIp(entry_host, a);
    if (n == 0 || ParseIp(host, b) != n || std::memcmp(a, b, n) != 0) return false;
  }
  return entry_port.empty() || entry_port == port;
}

AllowList AllowList::FromYaml(const YAML::Node& allow, ConfigProblems* problems) {
  const std::string& file = problems->file();
  AllowList a;
  a.configured_ = true;
  a.file_ = file;
  a.allow_at_ = a.targets_at_ = a.setup_at_ = a.custom_at_ = ConfigAt(file, allow);
  if (!allow.IsMap()) {
    problems->Add(allow, "allow", "expected a mapping (targets:, setup:, custom:)");
    return a;
  }
  problems->CheckKeys(allow, "allow.", {"targets", "setup", "custom"});
  if (const YAML::Node t = allow["targets"]) {
    a.targets_at_ = ConfigAt(file, t);
    if (!t.IsSequence()) {
      problems->Add(t, "allow.targets", "expected a list of {endpoints: [...], password_env: [...]}");
    } else {
      for (size_t i = 0; i < t.size(); ++i) a.ReadTarget(t[i], "allow.targets[" + std::to_string(i) + "]", problems);
    }
  }
  for (auto [key, flag, at] :
       {std::tuple{"setup", &a.setup_, &a.setup_at_}, std::tuple{"custom", &a.custom_, &a.custom_at_}}) {
    if (const YAML::Node n = allow[key]) {
      auto b = Bool(n, file, std::string("allow.") + key);
      if (!problems->Take(b.status())) continue;
      *flag = *b;
      *at = ConfigAt(file, n);
    }
  }
  return a;
}

// One of allow.targets: endpoints and the passwords they may be sent.
void AllowList::ReadTarget(const YAML::Node& e, const std::string& name, ConfigProblems* problems) {
  const std::string& file = problems->file();
  Target target;
  target.name = name;
  target.at = target.password_at = ConfigAt(file, e);
  if (!e.IsMap()) return problems->Add(e, name, "expected {endpoints: [...], password_env: [...]}");
  problems->CheckKeys(e, name + ".", {"endpoints", "password_env"});
  if (!e["endpoints"]) return problems->Add(e, name + ".endpoints", "missing");
  target.at = ConfigAt(file, e["endpoints"]);
  auto endpoints = Strings(e["endpoints"], file, name + ".endpoints");
  if (!problems->Take(endpoints.status())) return;
  for (size_t k = 0; k < endpoints->size(); ++k) {
    if (std::string why = EntryProblem((*endpoints)[k]); !why.empty()) {
      problems->Add(e["endpoints"][k], name + ".endpoints", why + ", found " + plan::Quoted((*endpoints)[k]));
    }
  }
  target.endpoints = *endpoints;
  if (e["password_env"]) {
    target.password_at = ConfigAt(file, e["password_env"]);
    auto envs = Strings(e["password_env"], file, name + ".password_env");
    if (!problems->Take(envs.status())) return;
    for (size_t k = 0; k < envs->size(); ++k) {
      if (!plan::IsIdentifier((*envs)[k])) {
        // Not echoed: it may be a password pasted in the wrong place.
        problems->Add(e["password_env"][k], name + ".password_env",
                      "expected the name of an environment variable; what was given is not shown, in case it is a "
                      "password");
      }
    }
    target.password_env = *envs;
  }
  targets_.push_back(std::move(target));
}

Status AllowList::Check(const v1::Plan& plan) const {
  if (!configured_) return Status::Ok();
  if (Status s = CheckTarget(plan.target()); !s.ok()) return s;
  return CheckStatements(plan);
}

Status AllowList::CheckTarget(const v1::Target& target) const {
  for (int i = 0; i < target.endpoints_size(); ++i) {
    Status s = CheckEndpoint(target.endpoints(i), "target.endpoints[" + std::to_string(i) + "]", "target",
                             target.password_env());
    if (!s.ok()) return s;
  }
  // The agent talks to the sentinels too, with their own password.
  const auto& sentinels = target.sentinel().endpoints();
  for (int i = 0; i < sentinels.size(); ++i) {
    Status s = CheckEndpoint(sentinels[i], "target.sentinel.endpoints[" + std::to_string(i) + "]", "target.sentinel",
                             target.sentinel().password_env());
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

Status AllowList::CheckEndpoint(const std::string& endpoint, const std::string& field, const std::string& env_of,
                                const std::string& env) const {
  const Target* match = nullptr;
  for (const Target& t : targets_) {
    for (const std::string& entry : t.endpoints) {
      if (!match && EndpointAllowed(entry, endpoint)) match = &t;
    }
  }
  const std::string which = field + " " + plan::Quoted(endpoint, 80);
  if (!match) {
    return Status::Error("refused by the agent's config: " + targets_at_ + "allow.targets: the plan's " + which +
                         " is not listed; add it (HOST:PORT, HOST or a network like 10.0.0.0/24) to allow.targets "
                         "in " +
                         file_);
  }
  if (!env.empty() &&
      std::find(match->password_env.begin(), match->password_env.end(), env) == match->password_env.end()) {
    // The plan loader only takes identifiers here; anything else is not echoed.
    const std::string var = plan::IsIdentifier(env) ? env : "(not a variable name)";
    return Status::Error("refused by the agent's config: " + match->password_at + match->name +
                         ".password_env: the plan's " + env_of + ".password_env " + var + " is not listed for " +
                         which + "; add it there in " + file_ + " to let this agent read it");
  }
  return Status::Ok();
}

Status AllowList::CheckStatements(const v1::Plan& plan) const {
  bool setup = plan.setup_size() > 0 || plan.cleanup_size() > 0;
  std::string custom;
  for (const v1::Phase& p : plan.phases()) {
    setup |= p.setup_size() > 0 || p.cleanup_size() > 0;
    if (custom.empty() && p.workload() == "custom") custom = p.name();
  }
  if (setup && !setup_) {
    return Status::Error(
        "refused by the agent's config: " + setup_at_ +
        "allow.setup: false, and the plan has setup: or cleanup: statements; set allow.setup: true in " + file_ +
        " to run them");
  }
  if (!custom.empty() && !custom_) {
    return Status::Error("refused by the agent's config: " + custom_at_ + "allow.custom: false, and phase " +
                         plan::Quoted(custom) + " runs workload: custom; set allow.custom: true in " + file_ +
                         " to run its statements");
  }
  return Status::Ok();
}

}  // namespace stampede::agent
