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
// A loop can also be run by the set itself (Run): it then blocks in the
// set's own epoll, with Asio's reactor nested in it for Asio's timers and
// sockets, so that a wake-up for C-library sockets costs one system call
// (docs/architecture.md, "The event loop").
//
// An Asio service: one per execution context (event loop), used from that
// loop's thread only, but for Wake.
#ifndef STAMPEDE_DRIVERS_READINESS_SET_H_
#define STAMPEDE_DRIVERS_READINESS_SET_H_

#include <sys/epoll.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstdint>
#include <optional>
#include <vector>

namespace boost::asio::detail {
class scheduler;
struct scheduler_thread_info;
}  // namespace boost::asio::detail

namespace stampede::drivers {

class ReadinessSet : public boost::asio::execution_context::service {
 public:
  using key_type = ReadinessSet;
  static inline boost::asio::execution_context::id id;
  // What a suspended coroutine leaves behind: calling it resumes the
  // coroutine. It is Asio's own record of a coroutine's stack, the one
  // use_awaitable's handlers hold, taken straight from the frame that
  // suspends (SocketWaiter::Suspend) and resumed as Asio launches a
  // coroutine. use_awaitable would suspend in a frame of its own
  // (async_result::initiate), one more allocation per operation
  // (docs/PERFORMANCE.md, issue 35).
  class Handler : public boost::asio::detail::awaitable_thread<boost::asio::any_io_executor> {
   public:
    explicit Handler(awaitable_thread* suspended) : awaitable_thread(std::move(*suspended)) {}
    void operator()() { launch(); }
  };

  // One socket's place in the set; its waiter owns it.
  struct Entry {
    int fd = -1;
    uint32_t events = 0;     // what the set asks of fd now; 0: fd is not in the set
    bool cancelled = false;  // the last wait ended by Cancel, not readiness
    std::optional<Handler> handler;
    // Its place in the set's entries_ from its first wait until Forget or
    // Drop; -1: none.
    int32_t slot = -1;
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

  // Runs `context` (this set's; concurrency hint 1) on this thread until it
  // stops, as context.run() would. While the set holds sockets, the thread
  // blocks in the set's own epoll, which also holds Asio's reactor and a
  // wake-up descriptor; the ready waiters are resumed there, and Asio runs
  // (poll) only when its reactor is ready, a waiter resumed posted work, or
  // Wake was called. While the set is empty, Asio blocks (run_one). Where
  // Asio's reactor is not epoll, this is context.run().
  void Run(boost::asio::io_context& context);
  // From any thread, after posting to a context that Run()s, or after
  // releasing its work: the loop wakes and runs Asio.
  void Wake();

 private:
  void shutdown() override;
  bool Set(Entry& entry, uint32_t events, bool recheck);
  Handler Take(Entry& entry);  // a waiting entry's handler
  void Enlist(Entry& entry);
  void Delist(Entry& entry);
  // Takes every pending handler; destroying them may Forget entries.
  void AbandonAll();
  void Arm();
  void Dispatch();
  // Takes the ready waiters' handlers into ready_; true if Asio's reactor
  // or a Wake was among the events.
  bool Collect(const epoll_event* events, int n);
  // Run()'s parts (readiness_set_loop.cc).
  bool Nest(boost::asio::io_context& context);
  void Unnest();
  bool BlockAndResume(boost::asio::detail::scheduler_thread_info& this_thread);
  bool ResumeReady(boost::asio::detail::scheduler_thread_info& this_thread);
  void Hold();
  void Release();

  int epoll_fd_ = -1;
  std::optional<boost::asio::posix::stream_descriptor> outer_;  // epoll_fd_, as Asio watches it
  bool armed_ = false;
  // Every entry that has waited and was not forgotten since, so that
  // shutdown can find the pending waits; how many of them wait now. Not a
  // list of the waiting ones: taking one out of a linked list writes to
  // its neighbours, other workers' entries, cold in cache at 1,000
  // connections (docs/PERFORMANCE.md, issue 35).
  std::vector<Entry*> entries_;
  size_t waiting_ = 0;
  std::vector<Handler> ready_;
  uint64_t wakeups_ = 0;
  size_t registered_ = 0;  // sockets in the set
  // Run()'s state: Asio's reactor descriptor and the wake-up eventfd, both
  // in epoll_fd_ while it runs (their addresses mark their events).
  int reactor_fd_ = -1;
  int wake_fd_ = -1;
  boost::asio::detail::scheduler* scheduler_ = nullptr;  // non-null: Run() is running
  bool holding_ = false;                                 // a unit of the context's work, while anyone waits
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_READINESS_SET_H_
