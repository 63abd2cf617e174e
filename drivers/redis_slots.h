// What both Redis Cluster drivers know of the cluster: which master serves
// each of the 16,384 hash slots (from CLUSTER SLOTS, corrected by MOVED),
// how to read a redirect, and which commands have no key to route by.
#ifndef STAMPEDE_DRIVERS_REDIS_SLOTS_H_
#define STAMPEDE_DRIVERS_REDIS_SLOTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

struct redisReply;

namespace stampede::drivers {

// A slot range of CLUSTER SLOTS and the endpoint of its master.
struct SlotRange {
  int first = 0;
  int last = 0;
  std::string master;  // host:port
};

// A MOVED or ASK reply: "MOVED 3999 127.0.0.1:6381".
struct Redirect {
  bool ask = false;
  int slot = 0;
  std::string endpoint;
};

class SlotMap {
 public:
  static constexpr int kSlots = 16384;

  SlotMap() : slot_node_(kSlots, -1) {}

  // Replaces the map.
  void Assign(const std::vector<SlotRange>& ranges);
  // The index (into nodes()) of the node serving slot, or -1.
  int NodeOf(int slot) const { return slot_node_[size_t(slot)]; }
  // A MOVED reply: the slot is now served by endpoint; returns its index.
  int Moved(int slot, const std::string& endpoint);
  // Every node the map names, once (a MOVED may add one).
  const std::vector<std::string>& nodes() const { return nodes_; }

 private:
  int IndexOf(const std::string& endpoint);

  std::vector<int> slot_node_;  // slot -> index into nodes_
  std::vector<std::string> nodes_;
};

// False unless reply is a well-formed MOVED or ASK. A node that does not
// know its own address announces ":port": read as 127.0.0.1:port.
bool ParseRedirect(std::string_view reply, Redirect* redirect);

// The ranges of a CLUSTER SLOTS reply; a master that announces no host is
// on the host of the node asked (asked: host:port).
StatusOr<std::vector<SlotRange>> ParseClusterSlots(const redisReply* reply, const std::string& asked);

// ROLE's first word (master, slave, sentinel); an error reply or another
// shape is an error naming the endpoint.
StatusOr<std::string> ParseRole(const redisReply* reply, const std::string& endpoint);
// The connect error of a node that is not a master, for session: read-write.
std::string RedisNotAMaster(const std::string& endpoint, const std::string& role);
// A sentinel's answer to SENTINEL get-master-addr-by-name NAME as
// "host:port"; an error reply, nil (no such master) or another shape is an
// error naming the sentinel.
StatusOr<std::string> ParseSentinelMaster(const redisReply* reply, const std::string& sentinel,
                                          const std::string& name);
// The connect error of a node that is not the master the sentinels name.
std::string RedisNotTheSentinelsMaster(const std::string& endpoint, const std::string& master);

// Puts the endpoint a worker was given first among the nodes it asks for
// the slot map (once: a reconnect to a known seed keeps the order).
void AddSeed(std::vector<std::string>* seeds, const std::string& seed);

// Commands routed to every master rather than by a key (EVAL without
// keys, FLUSHDB, CONFIG, ...), and commands with fewer than two words.
bool HasNoKey(const std::vector<std::string>& words, int argc);
// The word whose slot routes a keyed command: the first key (EVAL and
// EVALSHA with keys: the word after numkeys, the keys sharing a slot).
int KeyWord(const std::vector<std::string>& words, int argc);

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_REDIS_SLOTS_H_
