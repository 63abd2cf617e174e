#include "drivers/redis_cluster_driver.h"

#include "common/strings.h"

namespace stampede::drivers {
namespace {

constexpr int kMaxRedirects = 5;

}  // namespace

RedisClusterDriver::RedisClusterDriver() : args_(RedisCommands::kMaxWords) {}

RedisClusterDriver::~RedisClusterDriver() { Close(); }

Status RedisClusterDriver::Connect(const ConnectOptions& options) {
  base_ = options;
  const std::string seed = options.Endpoint();
  AddSeed(&seeds_, seed);
  std::string error;
  if (!Node(seed, &error)) return Status::Error(error);
  return LoadMap();
}

RedisDriver* RedisClusterDriver::Node(const std::string& endpoint, std::string* error) {
  auto& node = nodes_[endpoint];
  if (!node) node = std::make_unique<RedisDriver>();
  if (!node->connected()) {
    ConnectOptions o = base_;
    if (!SplitHostPort(endpoint, &o.host, &o.port)) {
      *error = "bad node address '" + endpoint + "'";
      return nullptr;
    }
    Status s = node->Connect(o);
    if (!s.ok()) {
      *error = s.message();
      return nullptr;
    }
  }
  return node.get();
}

Status RedisClusterDriver::LoadMap() {
  // Ask the nodes we know, seeds first, until one answers with full coverage.
  std::vector<std::string> candidates = seeds_;
  for (const auto& n : map_.nodes()) candidates.push_back(n);
  Status last = Status::Error("no node to ask for the slot map");
  for (const std::string& ep : candidates) {
    std::string error;
    RedisDriver* node = Node(ep, &error);
    if (!node) {
      last = Status::Error(error);
      continue;
    }
    auto ranges = node->ClusterSlots();
    if (!ranges.ok()) {
      last = ranges.status();
      continue;
    }
    map_.Assign(*ranges);
    map_loaded_ = true;
    map_stale_ = false;
    return Status::Ok();
  }
  map_loaded_ = false;
  return last;
}

OpResult RedisClusterDriver::Route(int argc, bool write, std::string* error) {
  if (map_stale_ || !map_loaded_) {
    Status s = LoadMap();
    if (!s.ok()) {
      *error = "slot map: " + s.message();
      return OpResult{Outcome::kUnavailable, 0};
    }
  }
  const int slot = argc > 1 ? RedisKeySlot(args_[size_t(KeyWord(args_, argc))]) : 0;
  const int idx = map_.NodeOf(slot);
  if (idx < 0) {
    map_stale_ = true;
    *error = "slot " + std::to_string(slot) + " is not served (CLUSTERDOWN)";
    return OpResult{Outcome::kUnavailable, 0};
  }
  std::string target = map_.nodes()[size_t(idx)];
  bool asking = false;
  OpResult r;
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    RedisDriver* node = Node(target, error);
    if (!node) {
      map_stale_ = true;  // the node is down: the map will change
      return OpResult{Outcome::kUnavailable, 0};
    }
    if (asking) {
      std::vector<std::string> ask = {"ASKING"};
      std::string ignored;
      node->SendArgs(ask, 1, false, &ignored);
    }
    reply_error_.clear();
    r = node->SendArgs(args_, argc, write, error, &reply_error_);
    if (!node->connected()) {
      map_stale_ = true;
      return r;
    }
    if (r.outcome == Outcome::kOk || reply_error_.empty()) return r;
    Redirect redirect;
    if (ParseRedirect(reply_error_, &redirect)) {
      if (!redirect.ask) map_.Moved(redirect.slot, redirect.endpoint);
      asking = redirect.ask;
      target = redirect.endpoint;
      continue;
    }
    if (reply_error_.rfind("TRYAGAIN", 0) == 0 || reply_error_.rfind("CLUSTERDOWN", 0) == 0) {
      map_stale_ = true;
    }
    return r;
  }
  return r;  // too many redirects: the last (retryable) outcome
}

Status RedisClusterDriver::ExecuteOnce(std::string_view statement) {
  std::vector<std::string> words = SplitWords(statement);
  if (words.empty() || words.size() > RedisCommands::kMaxWords) {
    return Status::Error("bad command '" + std::string(statement) + "'");
  }
  if (!map_loaded_) {
    Status s = LoadMap();
    if (!s.ok()) return s;
  }
  if (!HasNoKey(words, int(words.size()))) {
    for (size_t i = 0; i < words.size(); ++i) args_[i] = words[i];
    std::string error;
    OpResult r = Route(static_cast<int>(words.size()), true, &error);
    return r.outcome == Outcome::kOk ? Status::Ok() : Status::Error(error);
  }
  for (const std::string& master : map_.nodes()) {
    std::string error;
    RedisDriver* node = Node(master, &error);
    if (!node) return Status::Error(error);
    OpResult r = node->SendArgs(words, static_cast<int>(words.size()), true, &error);
    if (r.outcome != Outcome::kOk) return Status::Error(error);
  }
  return Status::Ok();
}

void RedisClusterDriver::Close() {
  nodes_.clear();
  map_loaded_ = false;
}

}  // namespace stampede::drivers
