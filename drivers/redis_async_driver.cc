#include "drivers/redis_async_driver.h"

#include <hiredis/hiredis.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "common/strings.h"
#include "drivers/redis_errors.h"

namespace stampede::drivers {

RedisAsyncDriver::RedisAsyncDriver(const boost::asio::any_io_executor& executor)
    : waiter_(executor),
      args_(RedisCommands::kMaxWords),
      argv_(RedisCommands::kMaxWords),
      argvlen_(RedisCommands::kMaxWords) {}

RedisAsyncDriver::~RedisAsyncDriver() { Close(); }

void RedisAsyncDriver::Close() {
  waiter_.Watch(-1);
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
}

OpResult RedisAsyncDriver::Lost(bool write, std::string* error) {
  OpResult r;
  r.outcome = write ? Outcome::kAmbiguous : Outcome::kUnavailable;
  *error = endpoint_ + ": connection lost" +
           (waiter_.aborted() || !ctx_ || !ctx_->err ? std::string() : std::string(": ") + ctx_->errstr);
  Close();
  return r;
}

Task<Status> RedisAsyncDriver::Connect(const ConnectOptions& o) {
  Close();
  endpoint_ = o.Endpoint();
  ctx_ = redisConnectNonBlock(o.host.c_str(), o.port);
  if (!ctx_) co_return Status::Error(endpoint_ + ": out of memory");
  if (ctx_->err) {
    Status s = Status::Error(endpoint_ + ": " + ctx_->errstr);
    Close();
    co_return s;
  }
  waiter_.Watch(ctx_->fd);
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  timer.expires_after(std::chrono::milliseconds(o.connect_timeout_ms > 0 ? o.connect_timeout_ms : 5000));
  timer.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) waiter_.Abort();
  });
  const bool writable = co_await waiter_.Writable();
  int err = 0;
  socklen_t len = sizeof(err);
  if (writable && getsockopt(ctx_->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (!writable || err != 0) {
    timer.cancel();
    Status s = Status::Error(endpoint_ + ": " + (writable ? std::strerror(err) : "timed out connecting (connect_timeout)"));
    Close();
    co_return s;
  }
  // Logging in is a command like any other: op_timeout bounds it, as the
  // blocking driver's socket timeout does.
  if (o.op_timeout_ms > 0) {
    timer.cancel();
    timer.expires_after(std::chrono::milliseconds(o.op_timeout_ms));
    timer.async_wait([this](const boost::system::error_code& ec) {
      if (!ec) waiter_.Abort();
    });
  }
  std::string error;
  bool ok = true;
  if (!o.password.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!o.user.empty()) auth.push_back(o.user);
    auth.push_back(o.password);
    ok = co_await Words(auth, &error);
    if (!ok) error = "authentication: " + error;
  }
  if (ok && !o.database.empty() && o.database != "0") {
    std::vector<std::string> select = {"SELECT", o.database};
    ok = co_await Words(select, &error);
    if (!ok) error = "SELECT " + o.database + ": " + error;
  }
  timer.cancel();
  if (!ok) {
    Close();
    co_return Status::Error(error);
  }
  co_return Status::Ok();
}

Task<bool> RedisAsyncDriver::Words(const std::vector<std::string>& words, std::string* error) {
  for (size_t i = 0; i < words.size() && i < args_.size(); ++i) args_[i] = words[i];
  OpResult r = co_await Command(int(std::min(words.size(), args_.size())), false, false, error);
  co_return r.outcome == Outcome::kOk;
}

Task<Status> RedisAsyncDriver::Prepare(const std::vector<StatementSpec>& statements) {
  co_return commands_.Compile(statements);
}

Task<OpResult> RedisAsyncDriver::Command(int argc, bool write, bool scalar, std::string* error) {
  (void)scalar;
  OpResult result;
  if (!ctx_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    co_return result;
  }
  for (int i = 0; i < argc; ++i) {
    argv_[size_t(i)] = args_[size_t(i)].data();
    argvlen_[size_t(i)] = args_[size_t(i)].size();
  }
  if (redisAppendCommandArgv(ctx_, argc, argv_.data(), argvlen_.data()) != REDIS_OK) co_return Lost(false, error);
  int done = 0;
  while (!done) {
    if (redisBufferWrite(ctx_, &done) != REDIS_OK) co_return Lost(false, error);
    if (!done && !co_await waiter_.Writable()) co_return Lost(false, error);
  }
  void* raw = nullptr;
  while (true) {
    if (redisGetReplyFromReader(ctx_, &raw) != REDIS_OK) co_return Lost(write, error);
    if (raw) break;
    if (!co_await waiter_.Readable() || redisBufferRead(ctx_) != REDIS_OK) co_return Lost(write, error);
  }
  auto* reply = static_cast<redisReply*>(raw);
  switch (reply->type) {
    case REDIS_REPLY_ERROR:
      result.outcome = ClassifyRedisError(std::string_view(reply->str, reply->len));
      *error = endpoint_ + ": " + std::string(reply->str, reply->len);
      break;
    case REDIS_REPLY_INTEGER:
      result.rows = result.value = reply->integer;
      break;
    case REDIS_REPLY_ARRAY:
      result.rows = static_cast<int64_t>(reply->elements);
      break;
    case REDIS_REPLY_NIL:
      result.rows = 0;
      break;
    default:
      result.rows = 1;
  }
  freeReplyObject(reply);
  co_return result;
}

Task<OpResult> RedisAsyncDriver::Execute(const OpRequest& req, std::string* error) {
  const int argc = commands_.Render(req, &args_);
  return Command(argc, commands_.write(req.stmt), commands_.scalar(req.stmt), error);
}

Task<OpResult> RedisAsyncDriver::Control(std::string_view statement, bool write, std::string* error) {
  const std::vector<std::string> words = SplitWords(statement);
  for (size_t i = 0; i < words.size() && i < args_.size(); ++i) args_[i] = words[i];
  co_return co_await Command(int(std::min(words.size(), args_.size())), write, false, error);
}

}  // namespace stampede::drivers
