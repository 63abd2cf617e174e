// Waits on an event loop until a socket that a C library owns (libpq's,
// hiredis's, libmariadb's) is readable or writable. It never closes the
// socket: the library does.
//
// Not thread-safe: the loop's thread only.
#ifndef STAMPEDE_DRIVERS_SOCKET_WAITER_H_
#define STAMPEDE_DRIVERS_SOCKET_WAITER_H_

#include <sys/socket.h>

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "drivers/async_driver.h"

namespace stampede::drivers {

class SocketWaiter {
 public:
  explicit SocketWaiter(const boost::asio::any_io_executor& executor) : sd_(executor) {}
  ~SocketWaiter() { Watch(-1); }
  SocketWaiter(const SocketWaiter&) = delete;
  SocketWaiter& operator=(const SocketWaiter&) = delete;

  // Watches fd from now on (the library may have opened another one); -1:
  // nothing.
  void Watch(int fd) {
    if (fd == fd_) return;
    if (sd_.is_open()) {
      boost::system::error_code ec;
      sd_.cancel(ec);
      (void)sd_.release();
    }
    fd_ = fd;
    aborted_ = false;
    if (fd >= 0) sd_.assign(fd);
  }
  int fd() const { return fd_; }

  // False if the wait was cut (Abort) or the socket failed.
  Task<bool> Readable() { return Wait(boost::asio::posix::stream_descriptor::wait_read); }
  Task<bool> Writable() { return Wait(boost::asio::posix::stream_descriptor::wait_write); }

  // The wait itself, without a coroutine frame of its own (for the
  // per-operation path): co_await it, then ok() says whether the socket
  // became readable (writable).
  auto ReadableNow() {
    return sd_.async_wait(boost::asio::posix::stream_descriptor::wait_read,
                          boost::asio::redirect_error(boost::asio::use_awaitable, ec_));
  }
  auto WritableNow() {
    return sd_.async_wait(boost::asio::posix::stream_descriptor::wait_write,
                          boost::asio::redirect_error(boost::asio::use_awaitable, ec_));
  }
  bool ok() const { return !ec_ && !aborted_; }

  // Ends the connection under the library: a pending wait returns false,
  // and the library's next read sees the end of the stream.
  void Abort() {
    aborted_ = true;
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
    if (sd_.is_open()) {
      boost::system::error_code ec;
      sd_.cancel(ec);
    }
  }
  bool aborted() const { return aborted_; }

 private:
  Task<bool> Wait(boost::asio::posix::stream_descriptor::wait_type what) {
    if (aborted_ || !sd_.is_open()) co_return false;
    boost::system::error_code ec;
    co_await sd_.async_wait(what, boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    co_return !ec && !aborted_;
  }

  boost::asio::posix::stream_descriptor sd_;
  int fd_ = -1;
  bool aborted_ = false;
  boost::system::error_code ec_;  // ReadableNow's
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_SOCKET_WAITER_H_
