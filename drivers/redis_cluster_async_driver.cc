#include "drivers/redis_cluster_async_driver.h"

#include "common/strings.h"
#include "drivers/endpoint_names.h"

namespace stampede::drivers {
RedisClusterAsyncDriver::RedisClusterAsyncDriver(const boost::asio::any_io_executor& executor)
    : executor_(executor), args_(RedisCommands::kMaxWords) {}

RedisClusterAsyncDriver::~RedisClusterAsyncDriver() { Close(); }

void RedisClusterAsyncDriver::Close() {
  pool_.clear();
  by_index_.clear();
  active_ = nullptr;
  map_loaded_ = false;
}

void RedisClusterAsyncDriver::Abort() {
  aborted_ = true;
  if (active_) active_->Abort();
}

Task<Status> RedisClusterAsyncDriver::Connect(const ConnectOptions& options) {
  aborted_ = false;
  base_ = options;
  const std::string seed = options.Endpoint();
  AddSeed(&seeds_, seed);
  std::string error;
  if (!co_await NodeAt(seed, &error)) co_return Status::Error(error);
  co_return co_await LoadMap();
}

Task<Status> RedisClusterAsyncDriver::Prepare(const std::vector<StatementSpec>& statements) {
  co_return commands_.Compile(statements);
}

Task<RedisAsyncDriver*> RedisClusterAsyncDriver::NodeAt(const std::string& endpoint, std::string* error) {
  auto& node = pool_[endpoint];
  if (!node) {
    node = std::make_unique<RedisAsyncDriver>(executor_);
    if (base_.endpoint_names) node->set_endpoint_index(base_.endpoint_names->IndexOf(endpoint));
  }
  if (!node->connected()) {
    ConnectOptions o = base_;
    if (!SplitHostPort(endpoint, &o.host, &o.port)) {
      *error = "bad node address '" + endpoint + "'";
      co_return nullptr;
    }
    active_ = node.get();
    Status s = co_await node->Connect(o);
    active_ = nullptr;
    if (!s.ok()) {
      *error = s.message();
      co_return nullptr;
    }
  }
  co_return node.get();
}

Task<RedisAsyncDriver*> RedisClusterAsyncDriver::Node(int index, std::string* error) {
  if (by_index_.size() < map_.nodes().size()) by_index_.resize(map_.nodes().size(), nullptr);
  RedisAsyncDriver* node = by_index_[size_t(index)];
  if (node && node->connected()) co_return node;
  node = co_await NodeAt(map_.nodes()[size_t(index)], error);
  by_index_[size_t(index)] = node;
  co_return node;
}

Task<Status> RedisClusterAsyncDriver::LoadMap() {
  // Ask the nodes we know, seeds first, until one answers.
  std::vector<std::string> candidates = seeds_;
  for (const auto& n : map_.nodes()) candidates.push_back(n);
  Status last = Status::Error("no node to ask for the slot map");
  for (const std::string& ep : candidates) {
    if (aborted_) break;
    std::string error;
    RedisAsyncDriver* node = co_await NodeAt(ep, &error);
    if (!node) {
      last = Status::Error(error);
      continue;
    }
    active_ = node;
    StatusOr<std::vector<SlotRange>> ranges = co_await node->ClusterSlots();
    active_ = nullptr;
    if (!ranges.ok()) {
      last = ranges.status();
      continue;
    }
    map_.Assign(*ranges);
    by_index_.assign(map_.nodes().size(), nullptr);
    map_loaded_ = true;
    map_stale_ = false;
    co_return Status::Ok();
  }
  map_loaded_ = false;
  co_return aborted_ ? Status::Error("slot map: stopped") : last;
}

Task<bool> RedisClusterAsyncDriver::EnsureMap(std::string* error) {
  if (map_loaded_ && !map_stale_) co_return true;
  Status s = co_await LoadMap();
  if (!s.ok()) *error = "slot map: " + s.message();
  co_return s.ok();
}

Task<OpResult> RedisClusterAsyncDriver::Execute(const OpRequest& req, std::string* error) {
  aborted_ = false;
  const int argc = commands_.Render(req, &args_);
  if (commands_.scalar(req.stmt) && HasNoKey(args_, argc)) co_return co_await SumOverMasters(argc, error);
  co_return co_await Route(argc, commands_.write(req.stmt), error);
}

Task<OpResult> RedisClusterAsyncDriver::Control(std::string_view statement, bool write, std::string* error) {
  aborted_ = false;
  const std::vector<std::string> words = SplitWords(statement);
  const size_t argc = std::min(words.size(), RedisCommands::kMaxWords);
  for (size_t i = 0; i < argc; ++i) args_[i] = words[i];
  co_return co_await Route(int(argc), write, error);
}

Task<OpResult> RedisClusterAsyncDriver::SumOverMasters(int argc, std::string* error) {
  if (!co_await EnsureMap(error)) co_return OpResult{Outcome::kUnavailable, 0};
  OpResult total;
  for (size_t i = 0; i < map_.nodes().size(); ++i) {
    RedisAsyncDriver* node = co_await Node(int(i), error);
    if (!node) {
      map_stale_ = true;
      co_return OpResult{Outcome::kUnavailable, 0};
    }
    active_ = node;
    OpResult r = co_await node->Send(args_, argc, false, error);
    active_ = nullptr;
    if (r.outcome != Outcome::kOk) {
      if (!node->connected()) map_stale_ = true;
      co_return r;
    }
    total.value += r.value;
    total.rows += r.rows;
  }
  co_return total;
}

Task<OpResult> RedisClusterAsyncDriver::Route(int argc, bool write, std::string* error) {
  if (!co_await EnsureMap(error)) co_return OpResult{Outcome::kUnavailable, 0};
  const int slot = argc > 1 ? RedisKeySlot(args_[size_t(KeyWord(args_, argc))]) : 0;
  int index = argc > 1 ? map_.NodeOf(slot) : (map_.nodes().empty() ? -1 : 0);
  if (index < 0) {
    map_stale_ = true;
    *error = "slot " + std::to_string(slot) + " is not served (CLUSTERDOWN)";
    co_return OpResult{Outcome::kUnavailable, 0};
  }
  RedisAsyncDriver* node = co_await Node(index, error);
  OpResult r{Outcome::kUnavailable, 0};
  for (int hop = 0; hop <= kMaxRedirects; ++hop) {
    if (!node) {
      map_stale_ = true;  // the node is down: the map will change
      co_return OpResult{Outcome::kUnavailable, 0};
    }
    active_ = node;
    r = co_await node->Send(args_, argc, write, error);
    r.endpoint = node->endpoint_index();
    active_ = nullptr;
    if (!node->connected()) {
      map_stale_ = true;
      co_return r;
    }
    const std::string_view reply = node->reply_error();
    if (r.outcome == Outcome::kOk || reply.empty()) co_return r;
    Redirect redirect;
    if (!ParseRedirect(reply, &redirect)) {
      if (reply.starts_with("TRYAGAIN") || reply.starts_with("CLUSTERDOWN")) map_stale_ = true;
      co_return r;
    }
    if (redirect.ask) {
      node = co_await NodeAt(redirect.endpoint, error);
      if (!node) continue;
      std::string ignored;
      active_ = node;
      (void)co_await node->Send(asking_, 1, false, &ignored);
      active_ = nullptr;
    } else {
      node = co_await Node(map_.Moved(redirect.slot, redirect.endpoint), error);
    }
  }
  co_return r;  // too many redirects: the last (retryable) outcome
}

}  // namespace stampede::drivers
