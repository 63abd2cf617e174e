// One level-triggered epoll set per event loop for the sockets that C
// libraries own (libpq's, libmariadb's), so that waiting on one costs no
// system call per operation.
//
// Asio's own reactor re-arms a descriptor with EPOLL_CTL_MOD on every
// async_wait (Boost 1.74) and completes each wait through its scheduler.
// Here a socket stays in the set between operations; Asio watches only the
// set's own descriptor, once per wake-up, and the ready waiters are resumed
// straight from that one completion. Level triggering is what makes that
// safe with libraries that need not drain their socket: readiness that is
// left is reported again. A socket that turns ready while nobody waits on
// it (a server's notice, or its end) leaves the set until its waiter waits
// again, so the loop never spins on it.
//
// An Asio service: one per execution context (event loop), used from that
// loop's thread only.
#ifndef STAMPEDE_DRIVERS_READINESS_SET_H_
#define STAMPEDE_DRIVERS_READINESS_SET_H_

#include <sys/epoll.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdint>
#include <optional>
#include <vector>

namespace stampede::drivers {

class ReadinessSet : public boost::asio::execution_context::service {
 public:
  using key_type = ReadinessSet;
  static inline boost::asio::execution_context::id id;
  // What a coroutine waiting with use_awaitable leaves behind: calling it
  // resumes the coroutine.
  using Handler = boost::asio::async_result<boost::asio::use_awaitable_t<>, void()>::handler_type;

  // One socket's place in the set; its waiter owns it.
  struct Entry {
    int fd = -1;
    uint32_t events = 0;     // what the set asks of fd now; 0: fd is not in the set
    bool cancelled = false;  // the last wait ended by Cancel, not readiness
    std::optional<Handler> handler;
    Entry* prev = nullptr;  // the list of entries with a handler
    Entry* next = nullptr;
  };

  explicit ReadinessSet(boost::asio::execution_context& context);
  ~ReadinessSet() override;
  ReadinessSet(const ReadinessSet&) = delete;
  ReadinessSet& operator=(const ReadinessSet&) = delete;

  // Resumes `handler` once entry.fd is ready for `events` (EPOLLIN or
  // EPOLLOUT; an error or hang-up counts), or at Cancel; at once (posted,
  // entry.cancelled) if fd cannot be watched. recheck: register fd
  // again even if the set has it (the library may have closed it and opened
  // another socket under the same number).
  void Wait(Entry& entry, uint32_t events, Handler handler, bool recheck, const boost::asio::any_io_executor& executor);
  // A pending wait completes now (posted, never inline).
  void Cancel(Entry& entry);
  // entry.fd leaves the set (before the library closes it); a pending wait
  // is cancelled.
  void Forget(Entry& entry);
  // The library closed entry.fd already (the kernel dropped it from the
  // set with it): the entry is forgotten without naming the number, which
  // another thread's new socket may hold by now. A pending wait is
  // cancelled.
  void Drop(Entry& entry);
  // How many times the set woke its loop (for tests: readiness nobody waits
  // for must not make it spin).
  uint64_t wakeups() const { return wakeups_; }

 private:
  void shutdown() override;
  bool Set(Entry& entry, uint32_t events, bool recheck);
  Handler Take(Entry& entry);  // a waiting entry's handler, off the list
  void Link(Entry& entry);
  void Unlink(Entry& entry);
  void Arm();
  void Dispatch();

  int epoll_fd_ = -1;
  std::optional<boost::asio::posix::stream_descriptor> outer_;  // epoll_fd_, as Asio watches it
  bool armed_ = false;
  Entry* waiting_ = nullptr;
  std::vector<Handler> ready_;
  uint64_t wakeups_ = 0;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_READINESS_SET_H_
