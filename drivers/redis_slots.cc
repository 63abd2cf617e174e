#include "drivers/redis_slots.h"

#include <hiredis/hiredis.h>
#include <strings.h>

#include <algorithm>
#include <charconv>

#include "common/strings.h"

namespace stampede::drivers {

void SlotMap::Assign(const std::vector<SlotRange>& ranges) {
  std::fill(slot_node_.begin(), slot_node_.end(), -1);
  nodes_.clear();
  for (const SlotRange& r : ranges) {
    const int idx = IndexOf(r.master);
    for (int s = std::max(0, r.first); s <= r.last && s < kSlots; ++s) slot_node_[size_t(s)] = idx;
  }
}

int SlotMap::Moved(int slot, const std::string& endpoint) {
  const int idx = IndexOf(endpoint);
  slot_node_[size_t(slot)] = idx;
  return idx;
}

int SlotMap::IndexOf(const std::string& endpoint) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i] == endpoint) return int(i);
  }
  nodes_.push_back(endpoint);
  return int(nodes_.size()) - 1;
}

bool ParseRedirect(std::string_view reply, Redirect* redirect) {
  std::vector<std::string> words = SplitWords(reply);
  if (words.size() != 3 || (words[0] != "MOVED" && words[0] != "ASK")) return false;
  int s = 0;
  auto [p, ec] = std::from_chars(words[1].data(), words[1].data() + words[1].size(), s);
  if (ec != std::errc() || p != words[1].data() + words[1].size() || s < 0 || s >= SlotMap::kSlots) return false;
  redirect->ask = words[0] == "ASK";
  redirect->slot = s;
  redirect->endpoint = words[2];
  if (!redirect->endpoint.empty() && redirect->endpoint.front() == ':') {
    redirect->endpoint = "127.0.0.1" + redirect->endpoint;
  }
  return true;
}

StatusOr<std::vector<SlotRange>> ParseClusterSlots(const redisReply* reply, const std::string& asked) {
  if (reply->type != REDIS_REPLY_ARRAY) {
    return Status::Error(asked + ": CLUSTER SLOTS: " +
                         (reply->type == REDIS_REPLY_ERROR ? std::string(reply->str, reply->len) : "unexpected reply"));
  }
  std::vector<SlotRange> ranges;
  for (size_t i = 0; i < reply->elements; ++i) {
    const redisReply* r = reply->element[i];
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 3) continue;
    const redisReply* m = r->element[2];
    if (m->type != REDIS_REPLY_ARRAY || m->elements < 2 || m->element[0]->type != REDIS_REPLY_STRING) continue;
    SlotRange range;
    range.first = int(r->element[0]->integer);
    range.last = int(r->element[1]->integer);
    std::string host(m->element[0]->str, m->element[0]->len);
    if (host.empty()) host = asked.substr(0, asked.rfind(':'));
    range.master = host + ":" + std::to_string(m->element[1]->integer);
    ranges.push_back(std::move(range));
  }
  return ranges;
}

namespace {
bool IsScriptWithKeys(const std::vector<std::string>& words, int argc) {
  return argc >= 4 && (strcasecmp(words[0].c_str(), "EVAL") == 0 || strcasecmp(words[0].c_str(), "EVALSHA") == 0) &&
         words[2] != "0";
}
}  // namespace

int KeyWord(const std::vector<std::string>& words, int argc) { return IsScriptWithKeys(words, argc) ? 3 : 1; }

bool HasNoKey(const std::vector<std::string>& words, int argc) {
  static constexpr const char* kKeyless[] = {"EVAL",   "EVALSHA",  "FLUSHDB", "FLUSHALL",
                                             "SCRIPT", "FUNCTION", "CONFIG",  "PING"};
  if (argc < 2) return true;
  if (IsScriptWithKeys(words, argc)) return false;
  for (const char* k : kKeyless) {
    if (strcasecmp(words[0].c_str(), k) == 0) return true;
  }
  return false;
}

StatusOr<std::string> ParseRole(const redisReply* r, const std::string& endpoint) {
  if (r && r->type == REDIS_REPLY_ERROR) return Status::Error(endpoint + ": ROLE: " + std::string(r->str, r->len));
  if (!r || r->type != REDIS_REPLY_ARRAY || r->elements == 0 || r->element[0]->type != REDIS_REPLY_STRING) {
    return Status::Error(endpoint + ": ROLE: not the array of a role");
  }
  return std::string(r->element[0]->str, r->element[0]->len);
}

std::string RedisNotAMaster(const std::string& endpoint, const std::string& role) {
  return endpoint + ": a " + (role == "slave" ? std::string("replica") : role) + ", not a master (session: read-write)";
}

StatusOr<std::string> ParseSentinelMaster(const redisReply* r, const std::string& sentinel, const std::string& name) {
  const std::string ask = "sentinel " + sentinel + ": SENTINEL get-master-addr-by-name " + name;
  if (r && r->type == REDIS_REPLY_ERROR) return Status::Error(ask + ": " + std::string(r->str, r->len));
  if (r && r->type == REDIS_REPLY_NIL) return Status::Error(ask + ": no master of that name");
  if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 2 || r->element[0]->type != REDIS_REPLY_STRING ||
      r->element[1]->type != REDIS_REPLY_STRING) {
    return Status::Error(ask + ": not a host and a port");
  }
  return std::string(r->element[0]->str, r->element[0]->len) + ":" +
         std::string(r->element[1]->str, r->element[1]->len);
}

std::string RedisNotTheSentinelsMaster(const std::string& endpoint, const std::string& master) {
  return endpoint + ": not the master the sentinels name (" + master + "; session: read-write)";
}

void AddSeed(std::vector<std::string>* seeds, const std::string& seed) {
  if (std::find(seeds->begin(), seeds->end(), seed) == seeds->end()) seeds->insert(seeds->begin(), seed);
}

}  // namespace stampede::drivers
