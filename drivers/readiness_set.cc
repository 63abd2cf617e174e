#include "drivers/readiness_set.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <array>
#include <boost/asio/post.hpp>
#include <utility>

namespace stampede::drivers {

ReadinessSet::ReadinessSet(boost::asio::execution_context& context)
    : boost::asio::execution_context::service(context),
      epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
      wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}

ReadinessSet::~ReadinessSet() {
  if (wake_fd_ >= 0) ::close(wake_fd_);
  if (outer_) {
    outer_.reset();  // closes epoll_fd_
  } else if (epoll_fd_ >= 0) {
    ::close(epoll_fd_);
  }
}

void ReadinessSet::shutdown() {
  // Pending waits are abandoned, as Asio abandons its own operations: their
  // handlers are destroyed, not called. Destroying one may destroy waiters,
  // which Forget their entries here.
  AbandonAll();
  outer_.reset();
  epoll_fd_ = -1;
}

void ReadinessSet::Wait(Entry& entry, uint32_t events, Handler handler, bool recheck,
                        const boost::asio::any_io_executor& executor) {
  // Under Run() Asio's reactor is in the set: the set must not be in it.
  if (!outer_ && epoll_fd_ >= 0 && scheduler_ == nullptr) outer_.emplace(executor, epoll_fd_);
  entry.cancelled = false;
  if (entry.fd < 0 || !Set(entry, events, recheck)) {
    entry.cancelled = true;
    boost::asio::post(executor, std::move(handler));
    return;
  }
  entry.handler.emplace(std::move(handler));
  ++waiting_;
  Enlist(entry);
  if (scheduler_ != nullptr) {
    Hold();
  } else {
    Arm();
  }
}

void ReadinessSet::Cancel(Entry& entry) {
  if (!entry.handler) return;
  entry.cancelled = true;
  Handler handler = Take(entry);
  const auto executor = handler.get_executor();
  boost::asio::post(executor, std::move(handler));
  if (waiting_ == 0 && armed_) {
    boost::system::error_code ignored;
    outer_->cancel(ignored);  // nothing holds the loop open any more
  }
}

void ReadinessSet::Forget(Entry& entry) {
  Cancel(entry);
  Delist(entry);
  Set(entry, 0, false);
}

void ReadinessSet::Drop(Entry& entry) {
  Cancel(entry);
  Delist(entry);
  if (entry.events != 0) --registered_;
  entry.events = 0;
}

bool ReadinessSet::Set(Entry& entry, uint32_t events, bool recheck) {
  if (entry.events == events && !recheck) return true;
  epoll_event event{};
  event.events = events;
  event.data.ptr = &entry;
  int op = events == 0 ? EPOLL_CTL_DEL : entry.events == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  int rc = epoll_ctl(epoll_fd_, op, entry.fd, &event);
  if (rc != 0 && op == EPOLL_CTL_MOD && errno == ENOENT) {
    op = EPOLL_CTL_ADD;  // the socket was closed and another opened under its number
    rc = epoll_ctl(epoll_fd_, op, entry.fd, &event);
  } else if (rc != 0 && op == EPOLL_CTL_ADD && errno == EEXIST) {
    op = EPOLL_CTL_MOD;
    rc = epoll_ctl(epoll_fd_, op, entry.fd, &event);
  }
  const bool was_in = entry.events != 0;
  entry.events = rc == 0 || op == EPOLL_CTL_DEL ? events : 0;
  registered_ += size_t(entry.events != 0) - size_t(was_in);
  return rc == 0;
}

ReadinessSet::Handler ReadinessSet::Take(Entry& entry) {
  --waiting_;
  Handler handler = std::move(*entry.handler);
  entry.handler.reset();
  return handler;
}

void ReadinessSet::Enlist(Entry& entry) {
  if (entry.slot >= 0) return;
  entry.slot = int32_t(entries_.size());
  entries_.push_back(&entry);
}

void ReadinessSet::Delist(Entry& entry) {
  if (entry.slot < 0) return;
  Entry* last = entries_.back();
  entries_[size_t(entry.slot)] = last;
  last->slot = entry.slot;
  entries_.pop_back();
  entry.slot = -1;
}

void ReadinessSet::AbandonAll() {
  // Destroying a handler may Forget entries, which moves the last one into
  // the freed place: an entry not yet visited always stays below i.
  for (size_t i = entries_.size(); i-- > 0;) {
    if (i >= entries_.size()) continue;
    Entry& entry = *entries_[i];
    if (entry.handler) {
      Handler abandoned = Take(entry);  // destroyed here
    }
  }
}

void ReadinessSet::Arm() {
  if (armed_ || waiting_ == 0 || !outer_) return;
  armed_ = true;
  outer_->async_wait(boost::asio::posix::stream_descriptor::wait_read, [this](const boost::system::error_code& ec) {
    armed_ = false;
    if (!ec) {
      Dispatch();
    } else if (ec != boost::asio::error::operation_aborted) {
      for (Entry* entry : entries_) Cancel(*entry);  // the set itself failed: no wait can end
      return;
    }
    Arm();  // someone waited again after a cancel, or is still waiting
  });
}

// Takes every ready waiter's handler first, then resumes them: a resumed
// worker may close its connection or start another wait, which must not
// touch the events still being read.
void ReadinessSet::Dispatch() {
  ++wakeups_;
  std::array<epoll_event, 64> events;
  Collect(events.data(), epoll_wait(epoll_fd_, events.data(), int(events.size()), 0));
  // Nothing below adds to ready_: only this completion does.
  for (Handler& handler : ready_) std::move(handler)();
  ready_.clear();
}

bool ReadinessSet::Collect(const epoll_event* events, int n) {
  bool asio = false;
  for (int i = 0; i < n; ++i) {
    void* mark = events[i].data.ptr;
    if (mark == &reactor_fd_ || mark == &wake_fd_) {
      asio = true;
      uint64_t count;
      if (mark == &wake_fd_) (void)!::read(wake_fd_, &count, sizeof count);
      continue;
    }
    Entry& entry = *static_cast<Entry*>(mark);
    if (!entry.handler) {
      Set(entry, 0, false);  // nobody waits: out of the set until someone does
      continue;
    }
    ready_.push_back(Take(entry));
  }
  return asio;
}

}  // namespace stampede::drivers
