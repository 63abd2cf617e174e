// ReadinessSet::Run: an event loop that blocks in the set's own epoll.
//
// Asio (1.74) keeps its reactor's epoll descriptor and the scheduler's
// per-thread queue to itself; this file reaches both, and nothing else
// does. Where the reactor is not epoll, Run is context.run().
// clang-format off
#include "drivers/readiness_set.h"  // first: Asio's detail headers need io_context.hpp before them
// clang-format on

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <array>
#include <boost/asio/detail/reactor.hpp>
#include <boost/asio/detail/scheduler.hpp>
#include <boost/asio/detail/scheduler_thread_info.hpp>
#include <boost/asio/detail/thread_context.hpp>
#include <cstdint>
#include <type_traits>

namespace stampede::drivers {
namespace {

namespace detail = boost::asio::detail;
constexpr bool kEpollReactor = std::is_same_v<detail::reactor, detail::epoll_reactor>;

// The reactor's epoll descriptor is a private member; an explicit
// instantiation may name one ([temp.spec.general]/6), and hands it to a
// friend function declared here.
using ReactorFdMember = int detail::epoll_reactor::*;
struct ReactorFdTag {
  friend ReactorFdMember ReactorFdOf(ReactorFdTag);
};
template <ReactorFdMember M>
struct ExposeReactorFd {
  friend ReactorFdMember ReactorFdOf(ReactorFdTag) { return M; }
};
template struct ExposeReactorFd<&detail::epoll_reactor::epoll_fd_>;

bool AddToSet(int epoll_fd, int fd, void* mark) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.ptr = mark;
  return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event) == 0;
}

}  // namespace

void ReadinessSet::Run(boost::asio::io_context& context) {
  if (!kEpollReactor || !Nest(context)) {
    context.run();
    return;
  }
  // Outlives each wake-up: Asio recycles coroutine frames and handlers in
  // the thread's record on its call stack (ResumeReady).
  detail::scheduler_thread_info this_thread;
  this_thread.private_outstanding_work = 0;
  for (;;) {
    // First: a unit held for waiters that are gone would keep Asio's own
    // blocking wait below from ever running out of work.
    Release();
    if (registered_ == 0) {
      // No socket to watch: Asio blocks in its own reactor.
      if (context.run_one() == 0) break;
      continue;
    }
    context.poll();
    // What Asio ran may have forgotten the last waiter or socket.
    Release();
    if (context.stopped()) break;
    if (registered_ > 0 && !BlockAndResume(this_thread)) break;
  }
  Unnest();
}

void ReadinessSet::Wake() {
  const uint64_t one = 1;
  if (wake_fd_ >= 0) (void)!::write(wake_fd_, &one, sizeof one);
}

bool ReadinessSet::Nest(boost::asio::io_context& context) {
  if (epoll_fd_ < 0 || wake_fd_ < 0 || outer_) return false;  // outer_: the set is in Asio's reactor
  if constexpr (kEpollReactor) {
    auto& reactor = boost::asio::use_service<detail::epoll_reactor>(context);
    reactor_fd_ = reactor.*ReactorFdOf(ReactorFdTag{});
  }
  if (reactor_fd_ < 0 || !AddToSet(epoll_fd_, reactor_fd_, &reactor_fd_)) return false;
  if (!AddToSet(epoll_fd_, wake_fd_, &wake_fd_)) {
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, reactor_fd_, nullptr);
    return false;
  }
  scheduler_ = &boost::asio::use_service<detail::scheduler>(context);
  return true;
}

void ReadinessSet::Unnest() {
  if (holding_) {
    holding_ = false;
    scheduler_->work_finished();
  }
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, reactor_fd_, nullptr);
  epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, wake_fd_, nullptr);
  scheduler_ = nullptr;
}

// Waits in the set and resumes the ready waiters until Asio has something
// to run: its reactor is ready, a Wake came, or a resumed waiter posted.
// False if the context stopped meanwhile (its work ran out).
bool ReadinessSet::BlockAndResume(detail::scheduler_thread_info& this_thread) {
  std::array<epoll_event, 64> events;
  for (;;) {
    const int n = epoll_wait(epoll_fd_, events.data(), int(events.size()), -1);
    if (n < 0 && errno != EINTR) return false;
    ++wakeups_;
    bool asio = Collect(events.data(), n);
    asio = ResumeReady(this_thread) || asio;
    Release();
    if (scheduler_->stopped()) return false;
    if (asio || registered_ == 0) return true;
  }
}

// Resumes the ready waiters as if from within Asio's run: what they post
// lands on this thread's queue, which is handed to the scheduler after.
// True if they posted anything.
bool ReadinessSet::ResumeReady(detail::scheduler_thread_info& this_thread) {
  if (ready_.empty()) return false;
  {
    detail::thread_context::thread_call_stack::context on_stack(scheduler_, this_thread);
    // Nothing below adds to ready_: only Collect does.
    for (Handler& handler : ready_) std::move(handler)();
    ready_.clear();
  }
  const bool posted = !this_thread.private_op_queue.empty();
  for (long i = 0; i < this_thread.private_outstanding_work; ++i) scheduler_->work_started();
  this_thread.private_outstanding_work = 0;
  if (posted) scheduler_->post_deferred_completions(this_thread.private_op_queue);
  return posted;
}

// While anyone waits in the set, the context has work, as it has while
// Asio's own wait on the set is pending when Asio runs the loop.
void ReadinessSet::Hold() {
  if (holding_) return;
  holding_ = true;
  scheduler_->work_started();
}

void ReadinessSet::Release() {
  if (!holding_ || waiting_ != 0) return;
  holding_ = false;
  scheduler_->work_finished();  // may stop the context
}

}  // namespace stampede::drivers
