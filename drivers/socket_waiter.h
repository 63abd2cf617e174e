// Waits on an event loop until a socket that a C library owns (libpq's,
// libmariadb's) is readable or writable, through the loop's ReadinessSet
// (drivers/readiness_set.h). It never closes the socket: the library does.
//
// Not thread-safe: the loop's thread only.
#ifndef STAMPEDE_DRIVERS_SOCKET_WAITER_H_
#define STAMPEDE_DRIVERS_SOCKET_WAITER_H_

#include <sys/epoll.h>
#include <sys/socket.h>

#include <boost/asio/execution/context.hpp>
#include <boost/asio/query.hpp>

#include "drivers/async_driver.h"
#include "drivers/readiness_set.h"

namespace stampede::drivers {

class SocketWaiter {
 public:
  explicit SocketWaiter(const boost::asio::any_io_executor& executor)
      : executor_(executor),
        set_(boost::asio::use_service<ReadinessSet>(boost::asio::query(executor, boost::asio::execution::context))) {}
  ~SocketWaiter() { Watch(-1); }
  SocketWaiter(const SocketWaiter&) = delete;
  SocketWaiter& operator=(const SocketWaiter&) = delete;

  // Watches fd from now on (the library may have opened another one); -1:
  // nothing. Call it with -1 before the library closes the socket.
  void Watch(int fd) {
    if (fd == entry_.fd) return;
    set_.Forget(entry_);
    entry_.fd = fd;
    aborted_ = false;
  }
  // Before the library closes its connection: library_fd is the socket
  // it says it has now. A library may close the socket itself when the
  // connection breaks (libpq does); then that number is no longer this
  // waiter's, and another thread's new socket may hold it already (seen
  // by TSan), so it is forgotten without a system call on it.
  void Unwatch(int library_fd) {
    if (library_fd == entry_.fd) return Watch(-1);
    set_.Drop(entry_);
    entry_.fd = -1;
    aborted_ = false;
  }
  int fd() const { return entry_.fd; }

  // False if the wait was cut (Abort) or the socket failed. For connecting
  // and the rare full send buffer: the socket is registered again, as the
  // library may have replaced it under the same number.
  Task<bool> Readable() { return Wait(EPOLLIN); }
  Task<bool> Writable() { return Wait(EPOLLOUT); }

  // The wait itself, without a coroutine frame of its own (for the
  // per-operation path): co_await it, then ok() says whether the socket
  // became readable (writable).
  class Suspend;
  Suspend ReadableNow();
  Suspend WritableNow();
  Suspend EventsNow(uint32_t events);
  bool ok() const { return !entry_.cancelled && !aborted_; }
  // A driver's step that must wait says for what (AsyncDriver::Begin);
  // Pending() is then that wait.
  void Expect(uint32_t events) { expected_ = events; }
  Suspend Pending();

  // Ends the connection under the library: a pending wait returns false,
  // and the library's next read sees the end of the stream.
  void Abort() {
    aborted_ = true;
    if (entry_.fd >= 0) ::shutdown(entry_.fd, SHUT_RDWR);
    set_.Cancel(entry_);
  }
  bool aborted() const { return aborted_; }

 private:
  Task<bool> Wait(uint32_t events);

  boost::asio::any_io_executor executor_;
  ReadinessSet& set_;
  ReadinessSet::Entry entry_;
  bool aborted_ = false;
  uint32_t expected_ = EPOLLIN;
};

// co_await it in a Task coroutine: Asio's awaitable runs it once the
// coroutine is suspended (the await_transform that async_initiate uses
// itself), and it hands the coroutine's stack to the set, which resumes the
// coroutine when the socket is ready. The coroutine suspends in its own
// frame: there is no other.
class SocketWaiter::Suspend {
 public:
  using Frame = boost::asio::detail::awaitable_frame_base<boost::asio::any_io_executor>;
  Suspend(SocketWaiter& waiter, uint32_t events, bool recheck) : waiter_(waiter), events_(events), recheck_(recheck) {}
  ReadinessSet::Handler* operator()(Frame* frame) const {
    waiter_.set_.Wait(waiter_.entry_, events_, ReadinessSet::Handler(frame->detach_thread()), recheck_,
                      waiter_.executor_);
    return nullptr;
  }

 private:
  SocketWaiter& waiter_;
  uint32_t events_;
  bool recheck_;
};

inline SocketWaiter::Suspend SocketWaiter::ReadableNow() { return Suspend(*this, EPOLLIN, false); }
inline SocketWaiter::Suspend SocketWaiter::WritableNow() { return Suspend(*this, EPOLLOUT, false); }
inline SocketWaiter::Suspend SocketWaiter::EventsNow(uint32_t events) { return Suspend(*this, events, false); }
inline SocketWaiter::Suspend SocketWaiter::Pending() { return Suspend(*this, expected_, false); }

inline Task<bool> SocketWaiter::Wait(uint32_t events) {
  if (aborted_ || entry_.fd < 0) co_return false;
  co_await Suspend(*this, events, true);
  co_return ok();
}

// AsyncDriver::Execute for a driver with steps (Begin and Proceed).
template <typename Driver>
Task<OpResult> ExecuteInSteps(Driver& driver, const OpRequest& request, std::string* error) {
  OpResult result;
  bool done = driver.Begin(request, &result, error);
  while (!done) {
    co_await driver.steps()->Pending();
    done = driver.Proceed(&result, error);
  }
  co_return result;
}

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_SOCKET_WAITER_H_
