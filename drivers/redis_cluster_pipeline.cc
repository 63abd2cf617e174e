// Pipelining on Redis Cluster: RedisClusterAsyncDriver's Append and
// ExecuteAppended. A round's operations go to the masters of their slots
// (each node gets its share in one write, as redis-benchmark's cluster mode
// and memtier do); each operation keeps its own answer, outcome and time.
#include "common/clock.h"
#include "drivers/redis_cluster_async_driver.h"

namespace stampede::drivers {
namespace {

std::string_view BareReply(const std::string& error) {
  const size_t at = error.find(": ");
  return at == std::string::npos ? std::string_view(error) : std::string_view(error).substr(at + 2);
}

}  // namespace

void RedisClusterAsyncDriver::Append(const OpRequest& req) {
  if (size_t(appended_) == pending_.size()) pending_.emplace_back();
  Pending& p = pending_[size_t(appended_++)];
  const int argc = commands_.Render(req, &args_);
  p.encoded.clear();
  EncodeResp(args_, argc, &p.encoded);
  p.write = commands_.write(req.stmt);
  p.slot = argc > 1 && !(commands_.scalar(req.stmt) && HasNoKey(args_, argc))
               ? RedisKeySlot(args_[size_t(KeyWord(args_, argc))])
               : -1;
  p.keyless_args.clear();
  if (p.slot < 0) p.keyless_args.assign(args_.begin(), args_.begin() + argc);
}

Task<void> RedisClusterAsyncDriver::ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) {
  aborted_ = false;
  const int total = std::min(n, appended_);
  appended_ = 0;
  for (int i = total; i < n; ++i) {
    results[i] = OpResult{Outcome::kFatal, 0, 0};
    ended_ns[i] = MonoNowNs();
    errors[i] = "not appended";
  }
  std::string error;
  const bool mapped = co_await EnsureMap(&error);
  groups_.resize(std::max(groups_.size(), map_.nodes().size()));
  for (auto& g : groups_) g.clear();
  for (int i = 0; i < total; ++i) {
    const Pending& p = pending_[size_t(i)];
    results[i] = OpResult{};
    if (p.slot < 0) continue;  // a count: after the groups
    const int index = mapped ? map_.NodeOf(p.slot) : -1;
    if (index >= 0) {
      groups_[size_t(index)].push_back(i);
      continue;
    }
    if (mapped) {
      map_stale_ = true;
      errors[i] = "slot " + std::to_string(p.slot) + " is not served (CLUSTERDOWN)";
    } else {
      errors[i] = error;
    }
    results[i] = OpResult{Outcome::kUnavailable, 0, 0};  // not sent
    ended_ns[i] = MonoNowNs();
  }
  co_await WriteGroups(results, ended_ns, errors);
  co_await ReadGroups(results, ended_ns, errors);
  for (int i = 0; i < total; ++i) {
    Pending& p = pending_[size_t(i)];
    if (p.slot < 0) {
      std::copy(p.keyless_args.begin(), p.keyless_args.end(), args_.begin());
      results[i] = co_await SumOverMasters(int(p.keyless_args.size()), &errors[i]);
      ended_ns[i] = MonoNowNs();
    } else if (results[i].outcome != Outcome::kOk && !aborted_) {
      co_await Redirected(i, &results[i], &ended_ns[i], &errors[i]);
    }
  }
}

Task<void> RedisClusterAsyncDriver::WriteGroups(OpResult* results, int64_t* ended_ns, std::string* errors) {
  group_nodes_.assign(groups_.size(), nullptr);
  for (size_t index = 0; index < groups_.size(); ++index) {
    std::vector<int>& group = groups_[index];
    if (group.empty()) continue;
    std::string error = "stopped";
    RedisAsyncDriver* node = nullptr;
    if (!aborted_) node = co_await Node(int(index), &error);
    if (!node) {
      map_stale_ = true;  // the node is down: the map will change
      for (int i : group) {
        results[i] = OpResult{Outcome::kUnavailable, 0, 0};
        ended_ns[i] = MonoNowNs();
        errors[i] = error;
      }
      group.clear();
      continue;
    }
    for (int i : group) node->AppendEncoded(pending_[size_t(i)].encoded, pending_[size_t(i)].write);
    group_nodes_[index] = node;
    active_ = node;
    co_await node->WriteAppended();
    active_ = nullptr;
  }
}

Task<void> RedisClusterAsyncDriver::ReadGroups(OpResult* results, int64_t* ended_ns, std::string* errors) {
  for (size_t index = 0; index < groups_.size(); ++index) {
    const std::vector<int>& group = groups_[index];
    if (group.empty()) continue;
    RedisAsyncDriver* node = group_nodes_[index];
    // Cut while another node was answering: this one's round is cut too.
    if (aborted_) node->Abort();
    const size_t k = group.size();
    if (sub_results_.size() < k) {
      sub_results_.resize(k);
      sub_ended_.resize(k);
      sub_errors_.resize(k);
    }
    active_ = node;
    co_await node->ReadAppended(int(k), sub_results_.data(), sub_ended_.data(), sub_errors_.data());
    active_ = nullptr;
    if (!node->connected()) map_stale_ = true;
    for (size_t j = 0; j < k; ++j) {
      const int i = group[j];
      results[i] = sub_results_[j];
      results[i].endpoint = node->endpoint_index();
      ended_ns[i] = sub_ended_[j];
      if (results[i].outcome != Outcome::kOk) errors[i].swap(sub_errors_[j]);
    }
  }
}

Task<void> RedisClusterAsyncDriver::Redirected(int i, OpResult* result, int64_t* ended_ns, std::string* error) {
  const Pending& p = pending_[size_t(i)];
  for (int hop = 0; hop < kMaxRedirects && !aborted_; ++hop) {
    const std::string_view reply = BareReply(*error);
    Redirect redirect;
    if (!ParseRedirect(reply, &redirect)) {
      if (reply.starts_with("TRYAGAIN") || reply.starts_with("CLUSTERDOWN")) map_stale_ = true;
      co_return;
    }
    RedisAsyncDriver* node = nullptr;
    if (redirect.ask) {
      node = co_await NodeAt(redirect.endpoint, error);
    } else {
      node = co_await Node(map_.Moved(redirect.slot, redirect.endpoint), error);
    }
    if (!node) {
      map_stale_ = true;
      *result = OpResult{Outcome::kUnavailable, 0, 0};
      co_return;
    }
    active_ = node;
    if (redirect.ask) {
      std::string ignored;
      (void)co_await node->Send(asking_, 1, false, &ignored);
    }
    node->AppendEncoded(p.encoded, p.write);
    co_await node->ExecuteAppended(1, result, ended_ns, error);
    result->endpoint = node->endpoint_index();
    active_ = nullptr;
    if (!node->connected()) map_stale_ = true;
    if (result->outcome == Outcome::kOk) co_return;
  }
}

}  // namespace stampede::drivers
