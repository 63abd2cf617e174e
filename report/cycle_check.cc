#include "report/cycle_check.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <limits>

namespace stampede::report {
namespace {

enum : uint8_t { kWW = 1, kWR = 2, kRW = 4, kProcess = 8, kRealtime = 16 };
constexpr uint8_t kData = kWW | kWR | kRW;
constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// The stages of the search: the edges each allows, the edge a cycle of the
// stage must pass through (none: any data edge) and its kinds' suffix.
struct Stage {
  uint8_t allowed;
  uint8_t through;
  const char* suffix;
};
constexpr std::array<Stage, 3> kStages = {{
    {kData, 0, ""},
    {kData | kProcess, kProcess, "_process"},
    {kData | kProcess | kRealtime, kRealtime, "_realtime"},
}};

// A cycle's kind from its rw edges (0, 1, 2 or more) and whether it has a
// wr edge.
const char* EdgeName(uint8_t k) {
  return k == kWW ? "ww" : k == kWR ? "wr" : k == kRW ? "rw" : k == kProcess ? "process" : "realtime";
}

const char* KindOf(int rw, bool wr) {
  if (rw == 0) return wr ? "g1c" : "g0";
  return rw == 1 ? "g_single" : "g2_item";
}

std::string Seconds(int64_t ns) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.3f s", double(ns) / 1e9);
  return b;
}

}  // namespace

// Edges in compressed rows, each with the kinds of dependency it stands for.
class CycleChecker::Graph {
 public:
  explicit Graph(uint32_t n) : n_(n) {}
  void Add(uint32_t a, uint32_t b, uint8_t bits) {
    if (a != b) raw_.push_back({a, b, bits});
  }
  void Finish() {
    std::sort(raw_.begin(), raw_.end(), [](const Raw& x, const Raw& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
    offsets_.assign(n_ + 1, 0);
    for (size_t i = 0; i < raw_.size(); ++i) {
      if (!to_.empty() && i > 0 && raw_[i - 1].a == raw_[i].a && raw_[i - 1].b == raw_[i].b) {
        bits_.back() |= raw_[i].bits;
        continue;
      }
      to_.push_back(raw_[i].b);
      bits_.push_back(raw_[i].bits);
      ++offsets_[raw_[i].a + 1];
    }
    for (uint32_t v = 0; v < n_; ++v) offsets_[v + 1] += offsets_[v];
    raw_ = {};
  }
  uint32_t size() const { return n_; }
  uint32_t begin(uint32_t v) const { return offsets_[v]; }
  uint32_t end(uint32_t v) const { return offsets_[v + 1]; }
  uint32_t to(uint32_t e) const { return to_[e]; }
  uint8_t bits(uint32_t e) const { return bits_[e]; }

  // The edges inside a component a cycle may pass through: with `through`
  // 0, its data edges by kind (ww, wr, rw); else those that only `through`
  // (process, or real time without process) adds.
  std::array<std::vector<Edge>, 3> Through(const std::vector<uint32_t>& members, const std::vector<uint32_t>& comp,
                                           uint8_t through) const {
    std::array<std::vector<Edge>, 3> edges;
    const uint8_t above = through == kRealtime ? kData | kProcess : kData;
    for (uint32_t u : members) {
      for (uint32_t e = begin(u); e < end(u); ++e) {
        if (comp[to(e)] != comp[u]) continue;
        if (through) {
          if ((bits(e) & through) && !(bits(e) & above)) edges[0].push_back({u, to(e)});
          continue;
        }
        for (int k = 0; k < 3; ++k) {
          if (bits(e) & (1 << k)) edges[size_t(k)].push_back({u, to(e)});
        }
      }
    }
    return edges;
  }

  // Strongly connected components over the edges with any of mask's bits
  // (Tarjan's, with an explicit stack): each node's component, and in
  // *members those of two or more nodes.
  std::vector<uint32_t> Components(uint8_t mask, std::vector<std::vector<uint32_t>>* members) const {
    std::vector<uint32_t> index(n_, kNone), low(n_, 0), comp(n_, kNone);
    std::vector<uint32_t> stack;
    std::vector<std::pair<uint32_t, uint32_t>> frames;  // node, next edge
    uint32_t counter = 0, count = 0;
    for (uint32_t s = 0; s < n_; ++s) {
      if (index[s] != kNone) continue;
      Visit(s, &index, &low, &stack, &frames, &counter);
      while (!frames.empty()) {
        auto& [v, e] = frames.back();
        bool descended = false;
        for (; e < end(v); ++e) {
          if (!(bits(e) & mask)) continue;
          const uint32_t w = to(e);
          if (index[w] == kNone) {
            ++e;
            Visit(w, &index, &low, &stack, &frames, &counter);
            descended = true;
            break;
          }
          if (comp[w] == kNone) low[v] = std::min(low[v], index[w]);
        }
        if (descended) continue;
        const uint32_t v_done = frames.back().first;
        frames.pop_back();
        if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[v_done]);
        if (low[v_done] != index[v_done]) continue;
        std::vector<uint32_t> c;
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          comp[w] = count;
          c.push_back(w);
        } while (w != v_done);
        ++count;
        if (c.size() > 1) members->push_back(std::move(c));
      }
    }
    return comp;
  }

 private:
  struct Raw {
    uint32_t a, b;
    uint8_t bits;
  };
  void Visit(uint32_t v, std::vector<uint32_t>* index, std::vector<uint32_t>* low, std::vector<uint32_t>* stack,
             std::vector<std::pair<uint32_t, uint32_t>>* frames, uint32_t* counter) const {
    (*index)[v] = (*low)[v] = (*counter)++;
    stack->push_back(v);
    frames->push_back({v, begin(v)});
  }

  uint32_t n_;
  std::vector<Raw> raw_;
  std::vector<uint32_t> offsets_, to_;
  std::vector<uint8_t> bits_;
};

// Breadth-first searches for a cycle through one edge inside one
// component, over states (node, rw edges so far: 0, 1, 2 or more, a wr
// edge so far), so that one search finds the shortest cycle of each kind
// through that edge.
class CycleChecker::Search {
 public:
  Search(const Graph& g, const std::vector<uint32_t>& comp, uint64_t* steps, uint64_t max_steps)
      : g_(g), comp_(comp), steps_(steps), max_steps_(max_steps) {}

  struct Found {
    const char* kind;
    std::vector<uint32_t> nodes;  // the cycle, from the edge's tail
    std::vector<uint8_t> via;     // the dependency each step follows
  };

  // Cycles through edge a -> b (followed as `bit`) over edges of `allowed`.
  std::vector<Found> Through(uint32_t a, uint32_t b, uint8_t bit, uint8_t allowed) {
    for (uint32_t s : touched_) parent_.erase(s);
    touched_.clear();
    std::deque<uint64_t> queue;
    const uint64_t start = State(b, bit == kRW ? 1 : 0, bit == kWR);
    Mark(start, kStart, bit);
    queue.push_back(start);
    std::array<bool, 6> reached{};
    int left = 6;
    while (!queue.empty() && left > 0) {
      if (++*steps_ > max_steps_) break;
      const uint64_t s = queue.front();
      queue.pop_front();
      const uint32_t u = uint32_t(s / 6);
      const int rw = int(s % 6 / 2);
      const bool wr = s % 2;
      if (u == a) {
        if (!reached[s % 6]) --left;
        reached[s % 6] = true;
        continue;
      }
      for (uint32_t e = g_.begin(u); e < g_.end(u); ++e) {
        const uint32_t w = g_.to(e);
        const uint8_t bits = g_.bits(e) & allowed;
        if (!bits || comp_[w] != comp_[a]) continue;
        for (uint8_t via : Interpretations(bits)) {
          const uint64_t next = State(w, std::min(2, rw + (via == kRW)), wr || via == kWR);
          if (parent_.count(next)) continue;
          Mark(next, s, via);
          queue.push_back(next);
        }
      }
    }
    std::vector<Found> found;
    for (int f = 0; f < 6; ++f) {
      if (!reached[size_t(f)]) continue;
      Found c{KindOf(f / 2, f % 2), {}, {}};
      if (Path(uint64_t(a) * 6 + uint64_t(f), &c)) found.push_back(std::move(c));
    }
    return found;
  }

 private:
  static constexpr uint64_t kStart = std::numeric_limits<uint64_t>::max();
  static uint64_t State(uint32_t node, int rw, bool wr) { return uint64_t(node) * 6 + uint64_t(rw * 2 + wr); }
  // The ways an edge can be followed: each data dependency it stands for,
  // else the session order it adds.
  static std::vector<uint8_t> Interpretations(uint8_t bits) {
    std::vector<uint8_t> v;
    for (uint8_t b : {kWW, kWR, kRW}) {
      if (bits & b) v.push_back(b);
    }
    if (v.empty()) v.push_back(bits & kProcess ? kProcess : kRealtime);
    return v;
  }
  void Mark(uint64_t s, uint64_t from, uint8_t via) {
    parent_[s] = {from, via};
    touched_.push_back(s);
  }
  // The cycle ending in state `end` (at the edge's tail), from the tail:
  // nodes[i] -> nodes[i + 1] follows via[i]. False unless it visits each
  // transaction once.
  bool Path(uint64_t end, Found* c) {
    std::vector<std::pair<uint32_t, uint8_t>> back;  // (node, the edge into it), from the end
    for (uint64_t s = end;; s = parent_.at(s).first) {
      back.push_back({uint32_t(s / 6), parent_.at(s).second});
      if (parent_.at(s).first == kStart) break;
    }
    // back: tail, ..., head; the head's edge is the one searched through.
    std::reverse(back.begin(), back.end());                 // head, ..., tail
    std::rotate(back.begin(), back.end() - 1, back.end());  // tail, head, ...
    for (size_t i = 0; i < back.size(); ++i) {
      c->nodes.push_back(back[i].first);
      c->via.push_back(back[(i + 1) % back.size()].second);
    }
    std::vector<uint32_t> sorted = c->nodes;
    std::sort(sorted.begin(), sorted.end());
    return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
  }

  const Graph& g_;
  const std::vector<uint32_t>& comp_;
  uint64_t* steps_;
  uint64_t max_steps_;
  std::unordered_map<uint64_t, std::pair<uint64_t, uint8_t>> parent_;  // state -> (previous, edge followed)
  std::vector<uint64_t> touched_;
};

uint32_t CycleChecker::Name(const std::string& s) {
  const auto [it, added] = name_index_.emplace(s, uint32_t(names_.size()));
  if (added) names_.push_back(s);
  return it->second;
}

void CycleChecker::Add(const AppendOp& done, int64_t invoked_ns) {
  Txn t{done.type == "ok",          done.final,       done.process,       invoked_ns, done.time, uint32_t(mops_.size()),
        uint32_t(done.mops.size()), Name(done.agent), Name(done.endpoint)};
  const uint32_t id = uint32_t(txns_.size());
  txns_.push_back(t);
  for (size_t i = 0; i < done.mops.size(); ++i) {
    const AppendMop& m = done.mops[i];
    if (!m.read) {
      bool again = false;
      for (size_t j = i + 1; j < done.mops.size(); ++j) again |= !done.mops[j].read && done.mops[j].key == m.key;
      writers_[m.value] = {id, again};
      mops_.push_back({false, m.key, m.value, 0});
      continue;
    }
    if (!t.ok) {
      mops_.push_back({true, m.key, 0, -1});
      continue;
    }
    mops_.push_back({true, m.key, m.list.empty() ? 0 : m.list.back(), int64_t(m.list.size())});
    // Its own appends to the key so far: the read must end with them.
    std::vector<int64_t> own;
    for (size_t j = 0; j < i; ++j) {
      if (!done.mops[j].read && done.mops[j].key == m.key) own.push_back(done.mops[j].value);
    }
    if (own.size() > m.list.size() || !std::equal(own.rbegin(), own.rend(), m.list.rbegin())) {
      std::string want;
      for (int64_t v : own) want += (want.empty() ? "" : ",") + std::to_string(v);
      Flag("internal", t, m.key,
           "a transaction's read of key " + std::to_string(m.key) + " does not end with its own appends " + want +
               " (" + Who(id) + ")");
    }
  }
}

void CycleChecker::SetOrder(int64_t key, const std::vector<int64_t>& order) { orders_[key] = order; }

const CycleChecker::Writer* CycleChecker::WriterOf(int64_t key, int64_t value) const {
  const auto it = writers_.find(value);
  if (it == writers_.end()) return nullptr;
  const Txn& t = txns_[it->second.txn];
  for (uint32_t i = t.first_mop; i < t.first_mop + t.mops; ++i) {
    if (!mops_[i].read && mops_[i].value == value) return mops_[i].key == key ? &it->second : nullptr;
  }
  return nullptr;
}

std::string CycleChecker::Who(uint32_t t) const {
  const Txn& x = txns_[t];
  return "process " + std::to_string(x.process) + ", " + (x.ok ? "ok at " : "unknown outcome, invoked at ") +
         Seconds(x.ok ? x.done : x.invoked);
}

size_t CycleChecker::Flag(const std::string& kind, const Txn& t, int64_t key, const std::string& detail) {
  ++out_.counts[kind];
  size_t shown = 0;
  for (const record::AnomalyExample& e : out_.examples) shown += e.kind == kind;
  if (shown >= options_.examples_per_kind) return 0;
  record::AnomalyExample e;
  e.kind = kind;
  e.t = double(t.done) / 1e9;
  e.agent = names_[t.agent];
  e.endpoint = names_[t.endpoint];
  e.op = "cycle";
  e.key = key;
  e.detail = detail;
  out_.examples.push_back(std::move(e));
  return shown + 1;
}

void CycleChecker::BuildDataEdges(Graph* g) {
  for (const auto& [key, order] : orders_) {
    const std::vector<int64_t>& o = order;
    for (size_t i = 0; i + 1 < o.size(); ++i) {
      const Writer* a = WriterOf(key, o[i]);
      const Writer* b = WriterOf(key, o[i + 1]);
      if (a && b) g->Add(a->txn, b->txn, kWW);
    }
  }
  for (uint32_t t = 0; t < txns_.size(); ++t) {
    for (uint32_t i = txns_[t].first_mop; i < txns_[t].first_mop + txns_[t].mops; ++i) {
      const Mop& m = mops_[i];
      if (!m.read || m.length < 0) continue;
      const auto it = orders_.find(m.key);
      if (it == orders_.end()) continue;
      const std::vector<int64_t>& o = it->second;
      const size_t n = size_t(m.length);
      if (n > o.size() || (n > 0 && o[n - 1] != m.value)) continue;  // not in the version order
      if (n > 0) {
        if (const Writer* w = WriterOf(m.key, o[n - 1])) g->Add(w->txn, t, kWR);
      }
      if (n < o.size()) {
        if (const Writer* w = WriterOf(m.key, o[n])) g->Add(t, w->txn, kRW);
      }
    }
  }
}

// Each worker's order, and real time: an edge from each transaction in the
// frontier (acknowledged, and not before another acknowledged one that
// began after it did) to each transaction that begins. The transitive
// reduction of real-time order, as Elle builds it.
void CycleChecker::BuildSessionEdges(Graph* g) {
  std::vector<uint32_t> order(txns_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const Txn &a = txns_[x], &b = txns_[y];
    return a.process != b.process ? a.process < b.process : a.invoked < b.invoked;
  });
  for (size_t i = 0; i + 1 < order.size(); ++i) {
    const Txn& a = txns_[order[i]];
    if (a.ok && a.process == txns_[order[i + 1]].process) g->Add(order[i], order[i + 1], kProcess);
  }
  struct Event {
    int64_t time;
    bool done;
    uint32_t txn;
  };
  std::vector<Event> events;
  for (uint32_t i = 0; i < txns_.size(); ++i) {
    events.push_back({txns_[i].invoked, false, i});
    if (txns_[i].ok) events.push_back({txns_[i].done + options_.margin_ns, true, i});
  }
  std::sort(events.begin(), events.end(),
            [](const Event& a, const Event& b) { return a.time != b.time ? a.time < b.time : (!a.done && b.done); });
  std::vector<uint32_t> frontier;
  std::unordered_map<uint32_t, std::vector<uint32_t>> before;  // running: the frontier it began after
  for (const Event& e : events) {
    if (!e.done) {
      for (uint32_t f : frontier) g->Add(f, e.txn, kRealtime);
      if (txns_[e.txn].ok) before[e.txn] = frontier;
      continue;
    }
    const std::vector<uint32_t> gone = std::move(before[e.txn]);
    before.erase(e.txn);
    frontier.erase(std::remove_if(frontier.begin(), frontier.end(),
                                  [&](uint32_t f) { return std::find(gone.begin(), gone.end(), f) != gone.end(); }),
                   frontier.end());
    frontier.push_back(e.txn);
  }
}

void CycleChecker::CheckIntermediateReads() {
  for (uint32_t t = 0; t < txns_.size(); ++t) {
    for (uint32_t i = txns_[t].first_mop; i < txns_[t].first_mop + txns_[t].mops; ++i) {
      const Mop& m = mops_[i];
      if (!m.read || m.length <= 0) continue;
      const Writer* w = WriterOf(m.key, m.value);
      if (!w || !w->intermediate || w->txn == t) continue;
      Flag("g1b", txns_[t], m.key,
           "read key " + std::to_string(m.key) + " up to " + std::to_string(m.value) + ", which its transaction (" +
               Who(w->txn) + ") appended to it and then appended again (" + Who(t) + ")");
    }
  }
}

// Tries the edges a cycle may pass through, the data ones interleaved by
// kind so that each kind gets its turn, until each of the stage's four
// kinds is found or the tries run out.
void CycleChecker::SearchComponent(const std::array<std::vector<Edge>, 3>& through, size_t stage, Search* search,
                                   const uint64_t& steps) {
  const Stage& st = kStages[stage];
  std::map<std::string, bool> seen;
  constexpr size_t kTriesPerComponent = 64;
  for (size_t i = 0; i < kTriesPerComponent && seen.size() < 4 && steps <= options_.max_steps; ++i) {
    for (size_t k = 0; k < 3; ++k) {
      if (i >= through[k].size()) continue;
      const Edge e = through[k][i];
      for (const Search::Found& f :
           search->Through(e.from, e.to, st.through ? st.through : uint8_t(1 << k), st.allowed)) {
        const std::string kind = std::string(f.kind) + st.suffix;
        if (seen[kind]) continue;
        seen[kind] = true;
        const Txn* last = &txns_[f.nodes[0]];
        for (uint32_t n : f.nodes) {
          if (txns_[n].done > last->done) last = &txns_[n];
        }
        if (const size_t n = Flag(kind, *last, -1, Explain(f.nodes, f.via))) {
          const std::string name = kind + "-" + std::to_string(n);
          out_.dots.push_back({name, Dot(name, f.nodes, f.via)});
        }
      }
    }
  }
}

CycleFindings CycleChecker::Check() {
  CheckIntermediateReads();
  Graph g(uint32_t(txns_.size()));
  BuildDataEdges(&g);
  BuildSessionEdges(&g);
  g.Finish();
  uint64_t steps = 0;
  for (size_t stage = 0; stage < kStages.size(); ++stage) {
    std::vector<std::vector<uint32_t>> components;
    const std::vector<uint32_t> comp = g.Components(kStages[stage].allowed, &components);
    Search search(g, comp, &steps, options_.max_steps);
    for (const std::vector<uint32_t>& members : components) {
      SearchComponent(g.Through(members, comp, kStages[stage].through), stage, &search, steps);
    }
  }
  if (steps > options_.max_steps) {
    out_.note = "the cycle search stopped after " + std::to_string(options_.max_steps) +
                " steps: there may be more kinds of cycle than it found";
  }
  return std::move(out_);
}

// "T1 (process 3, ok at 2.310 s) -wr-> T2 (...) -rw-> T1: T2 read key 4 up to
// T1's append 10; T2 read key 7 without T1's append 12, the next one."
std::vector<std::string> CycleChecker::Reasons(const std::vector<uint32_t>& cycle,
                                               const std::vector<uint8_t>& kinds) const {
  std::vector<std::string> reasons;
  for (size_t i = 0; i < cycle.size(); ++i) {
    std::string w = Why(cycle[i], cycle[(i + 1) % cycle.size()], kinds[i]);
    for (size_t at; (at = w.find_first_of("\x01\x02")) != std::string::npos;) {
      w.replace(at, 1, "T" + std::to_string((w[at] == '\x01' ? i : i + 1) % cycle.size() + 1));
    }
    reasons.push_back(std::move(w));
  }
  return reasons;
}

std::string CycleChecker::Explain(const std::vector<uint32_t>& cycle, const std::vector<uint8_t>& kinds) const {
  const std::vector<std::string> reasons = Reasons(cycle, kinds);
  std::string text, why;
  for (size_t i = 0; i < cycle.size(); ++i) {
    text += "T" + std::to_string(i + 1) + " (" + Who(cycle[i]) + ") -" + EdgeName(kinds[i]) + "-> ";
    why += (why.empty() ? "" : "; ") + reasons[i];
  }
  return text + "T1: " + why + ".";
}

// The cycle for Graphviz: a node a transaction, an edge a dependency with
// its reason.
std::string CycleChecker::Dot(const std::string& name, const std::vector<uint32_t>& cycle,
                              const std::vector<uint8_t>& kinds) const {
  auto quoted = [](std::string s) {
    for (size_t at = 0; (at = s.find('"', at)) != std::string::npos; at += 2) s.insert(at, "\\");
    return "\"" + s + "\"";
  };
  const std::vector<std::string> reasons = Reasons(cycle, kinds);
  std::string dot = "digraph " + quoted(name) + " {\n  label=" + quoted(name) + ";\n  node [shape=box];\n";
  for (size_t i = 0; i < cycle.size(); ++i) {
    const Txn& t = txns_[cycle[i]];
    dot += "  T" + std::to_string(i + 1) + " [label=" +
           quoted("T" + std::to_string(i + 1) + "\\n" + Who(cycle[i]) + "\\n" + names_[t.endpoint] + ", agent " +
                  names_[t.agent]) +
           "];\n";
  }
  for (size_t i = 0; i < cycle.size(); ++i) {
    dot += "  T" + std::to_string(i + 1) + " -> T" + std::to_string((i + 1) % cycle.size() + 1) +
           " [label=" + quoted(std::string(EdgeName(kinds[i])) + ": " + reasons[i]) + "];\n";
  }
  return dot + "}\n";
}

// Why a precedes b, with \x01 for a's name and \x02 for b's.
std::string CycleChecker::Why(uint32_t a, uint32_t b, uint8_t kind) const {
  const Txn &ta = txns_[a], &tb = txns_[b];
  auto each = [&](const Txn& t, auto fn) -> std::string {
    for (uint32_t i = t.first_mop; i < t.first_mop + t.mops; ++i) {
      const std::string s = fn(mops_[i]);
      if (!s.empty()) return s;
    }
    return "";
  };
  auto order = [&](int64_t key) -> const std::vector<int64_t>* {
    const auto it = orders_.find(key);
    return it == orders_.end() ? nullptr : &it->second;
  };
  auto written_by = [&](int64_t key, int64_t v, uint32_t t) {
    const Writer* w = WriterOf(key, v);
    return w && w->txn == t;
  };
  if (kind == kWW) {
    return each(ta, [&](const Mop& m) -> std::string {
      const std::vector<int64_t>* o = order(m.key);
      if (m.read || !o) return "";
      const auto at = std::find(o->begin(), o->end(), m.value);
      if (at == o->end() || at + 1 == o->end() || !written_by(m.key, *(at + 1), b)) return "";
      return "\x02 appended " + std::to_string(*(at + 1)) + " to key " + std::to_string(m.key) +
             " right after \x01's " + std::to_string(m.value);
    });
  }
  if (kind == kWR) {
    return each(tb, [&](const Mop& m) -> std::string {
      if (!m.read || m.length <= 0 || !written_by(m.key, m.value, a)) return "";
      return "\x02 read key " + std::to_string(m.key) + " up to \x01's append " + std::to_string(m.value);
    });
  }
  if (kind == kRW) {
    return each(ta, [&](const Mop& m) -> std::string {
      const std::vector<int64_t>* o = order(m.key);
      if (!m.read || m.length < 0 || !o || size_t(m.length) >= o->size()) return "";
      const int64_t next = (*o)[size_t(m.length)];
      if (!written_by(m.key, next, b)) return "";
      return "\x01 read key " + std::to_string(m.key) + (m.length ? " up to " + std::to_string(m.value) : " empty") +
             ", without \x02's append " + std::to_string(next) + ", the next";
    });
  }
  if (kind == kProcess) return "\x02 is process " + std::to_string(tb.process) + "'s next transaction after \x01";
  char gap[32];
  std::snprintf(gap, sizeof(gap), "%.0f µs", double(tb.invoked - ta.done) / 1e3);
  return "\x02 began " + std::string(gap) + " after \x01 was acknowledged";
}

}  // namespace stampede::report
