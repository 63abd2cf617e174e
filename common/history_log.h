// One worker's history for a history-keeping workload (append:
// docs/consistency.md): each transaction's invocation and completion with
// its micro-operations, written by the worker's thread without a lock, and
// read by the runner's collector once a second (single producer, single
// consumer).
//
// Events go into chunks of raw bytes: the worker copies numbers and the
// text a read returned, nothing is formatted, and memory is allocated once
// per chunk (64 KiB), not per operation. A chunk the collector has read is
// freed. The collector parses and encodes (agent/phase_runner.cc).
#ifndef STAMPEDE_COMMON_HISTORY_LOG_H_
#define STAMPEDE_COMMON_HISTORY_LOG_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

namespace stampede {

enum class HistoryType : uint8_t { kInvoke = 0, kOk = 1, kFail = 2, kInfo = 3 };

// A transaction's micro-operation: append value to key's list, or read
// key's list (text: what the read returned, "1,5,9", on an ok completion).
struct HistoryMop {
  bool read = false;
  int64_t key = 0;
  int64_t value = 0;
  std::string_view text;
};

inline constexpr int kMaxHistoryMops = 8;

// An event as the collector reads it; text points into the log's chunk,
// valid during the Drain callback.
struct HistoryEvent {
  HistoryType type = HistoryType::kInvoke;
  bool final = false;  // the final read after the phase
  uint32_t endpoint = 0;
  int64_t mono_ns = 0;
  int n = 0;
  HistoryMop mops[kMaxHistoryMops];
};

class HistoryLog {
 public:
  HistoryLog() : head_(new Chunk(kChunkBytes)), tail_(head_) {}
  ~HistoryLog() {
    for (Chunk* c = head_; c;) {
      Chunk* next = c->next.load(std::memory_order_acquire);
      delete c;
      c = next;
    }
  }
  HistoryLog(const HistoryLog&) = delete;
  HistoryLog& operator=(const HistoryLog&) = delete;

  // Worker thread only. At most kMaxHistoryMops micro-operations (more are
  // not recorded).
  void Record(const HistoryEvent& e) {
    const int n = std::clamp(e.n, 0, kMaxHistoryMops);
    size_t bytes = sizeof(Header);
    for (int i = 0; i < n; ++i) bytes += sizeof(MopHeader) + e.mops[i].text.size();
    char* p = Reserve(bytes);
    const Header h{e.mono_ns, e.endpoint, static_cast<uint8_t>(e.type), uint8_t(n), e.final};
    p = Put(p, &h, sizeof h);
    for (int i = 0; i < n; ++i) {
      const HistoryMop& m = e.mops[i];
      const MopHeader mh{m.key, m.value, uint32_t(m.text.size()), m.read};
      p = Put(p, &mh, sizeof mh);
      p = Put(p, m.text.data(), m.text.size());
    }
    tail_->used.store(tail_->used.load(std::memory_order_relaxed) + bytes, std::memory_order_release);
  }

  // Collector thread only: calls fn(const HistoryEvent&) for each event
  // recorded since the last call, oldest first, until fn returns false
  // (that event stays for the next call). Returns the events passed.
  template <typename Fn>
  uint64_t Drain(Fn fn) {
    uint64_t passed = 0;
    while (true) {
      // Seen next first: every byte of head_ was published before it.
      Chunk* next = head_->next.load(std::memory_order_acquire);
      const size_t used = head_->used.load(std::memory_order_acquire);
      while (read_ < used) {
        HistoryEvent e;
        const size_t size = Parse(head_->data.get() + read_, &e);
        if (!fn(e)) return passed;
        read_ += size;
        ++passed;
      }
      if (!next) return passed;
      delete head_;
      head_ = next;
      read_ = 0;
    }
  }

 private:
  static constexpr size_t kChunkBytes = 64 << 10;
  struct Chunk {
    explicit Chunk(size_t c) : data(new char[c]), capacity(c) {}
    std::unique_ptr<char[]> data;
    size_t capacity;
    std::atomic<size_t> used{0};
    std::atomic<Chunk*> next{nullptr};
  };
  struct Header {
    int64_t mono_ns;
    uint32_t endpoint;
    uint8_t type, n;
    bool final;
  };
  struct MopHeader {
    int64_t key, value;
    uint32_t text_bytes;
    bool read;
  };

  static char* Put(char* p, const void* src, size_t n) {
    if (n) std::memcpy(p, src, n);
    return p + n;
  }
  // Room for bytes at the end of the tail chunk (a new chunk if needed).
  char* Reserve(size_t bytes) {
    const size_t used = tail_->used.load(std::memory_order_relaxed);
    if (used + bytes > tail_->capacity) {
      Chunk* c = new Chunk(std::max(kChunkBytes, bytes));
      tail_->next.store(c, std::memory_order_release);
      tail_ = c;
      return c->data.get();
    }
    return tail_->data.get() + used;
  }
  static size_t Parse(const char* start, HistoryEvent* e) {
    const char* p = start;
    Header h;
    std::memcpy(&h, p, sizeof h);
    p += sizeof h;
    e->mono_ns = h.mono_ns;
    e->endpoint = h.endpoint;
    e->type = static_cast<HistoryType>(h.type);
    e->n = h.n;
    e->final = h.final;
    for (int i = 0; i < e->n; ++i) {
      MopHeader mh;
      std::memcpy(&mh, p, sizeof mh);
      p += sizeof mh;
      e->mops[i] = {mh.read, mh.key, mh.value, std::string_view(p, mh.text_bytes)};
      p += mh.text_bytes;
    }
    return size_t(p - start);
  }

  Chunk* head_;  // collector
  size_t read_ = 0;
  Chunk* tail_;  // worker
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_HISTORY_LOG_H_
