#include "drivers/redis_async_driver.h"

#include <hiredis/hiredis.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <chrono>
#include <memory>

#include "common/clock.h"
#include "common/strings.h"
#include "drivers/redis_errors.h"

namespace stampede::drivers {
namespace {

namespace asio = boost::asio;

// Reply functions that keep the top-level reply's summary in the reader's
// privdata and allocate nothing.
void* Top(const redisReadTask* t, int type) {
  auto* r = static_cast<RedisReplySummary*>(t->privdata);
  if (!t->parent) r->type = type;
  return r;
}
void* CreateString(const redisReadTask* t, char* s, size_t len) {
  auto* r = static_cast<RedisReplySummary*>(Top(t, t->type));
  if (!t->parent && t->type == REDIS_REPLY_ERROR) r->error.assign(s, len);
  if (!t->parent && t->type != REDIS_REPLY_ERROR && r->text) r->text->assign(s, len);
  return r;
}
void* CreateArray(const redisReadTask* t, int n) {
  auto* r = static_cast<RedisReplySummary*>(Top(t, REDIS_REPLY_ARRAY));
  if (!t->parent) r->elements = n;
  return r;
}
void* CreateInteger(const redisReadTask* t, long long v) {
  auto* r = static_cast<RedisReplySummary*>(Top(t, REDIS_REPLY_INTEGER));
  if (!t->parent) r->integer = v;
  return r;
}
void* CreateNil(const redisReadTask* t) { return Top(t, REDIS_REPLY_NIL); }
void FreeObject(void*) {}
redisReplyObjectFunctions kSummaryFunctions = {CreateString, CreateArray, CreateInteger, CreateNil, FreeObject};

}  // namespace

RedisAsyncDriver::RedisAsyncDriver(const asio::any_io_executor& executor) : socket_(executor) {
  out_.reserve(1024);
  reply_.error.reserve(128);
}

RedisAsyncDriver::~RedisAsyncDriver() { Close(); }

void RedisAsyncDriver::Close() {
  boost::system::error_code ec;
  socket_.close(ec);
  connected_ = false;
  if (reader_) redisReaderFree(reader_);
  reader_ = nullptr;
}

void RedisAsyncDriver::Abort() {
  aborted_ = true;
  boost::system::error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  socket_.cancel(ec);
}

OpResult RedisAsyncDriver::Lost(bool write, const std::string& why, std::string* error) {
  OpResult r;
  r.outcome = LostInFlight(write);
  *error = endpoint_ + ": connection lost" + (aborted_ || why.empty() ? std::string() : ": " + why);
  Close();
  return r;
}

void RedisAsyncDriver::AbortAt(asio::steady_timer* timer, int64_t deadline_ns) {
  timer->expires_after(std::chrono::nanoseconds(std::max<int64_t>(0, deadline_ns - MonoNowNs())));
  timer->async_wait([this](const boost::system::error_code& ec) {
    if (ec) return;
    timed_out_ = true;
    Abort();
  });
}

Task<Status> RedisAsyncDriver::Open(const std::string& host, int port) {
  auto ex = co_await asio::this_coro::executor;
  boost::system::error_code ec;
  asio::ip::tcp::resolver resolver(ex);
  auto endpoints =
      co_await resolver.async_resolve(host, std::to_string(port), asio::redirect_error(asio::use_awaitable, ec));
  if (!ec) co_await asio::async_connect(socket_, endpoints, asio::redirect_error(asio::use_awaitable, ec));
  if (ec || aborted_) {
    Status s = Status::Error(endpoint_ + ": " + (aborted_ ? "timed out connecting (connect_timeout)" : ec.message()));
    Close();
    co_return s;
  }
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
  reader_ = redisReaderCreateWithFunctions(&kSummaryFunctions);
  reader_->privdata = &reply_;  // redisReaderSetPrivdata casts it to int in 0.14
  connected_ = true;
  co_return Status::Ok();
}

Task<Status> RedisAsyncDriver::Connect(const ConnectOptions& o) {
  Close();
  aborted_ = timed_out_ = false;
  // Asking the sentinels and opening the connection share connect_timeout.
  const int64_t deadline = MonoNowNs() + int64_t(o.connect_timeout_ms > 0 ? o.connect_timeout_ms : 5000) * kNsPerMs;
  if (o.session == "read-write" && !o.sentinels.empty()) {
    StatusOr<std::string> master = co_await AskSentinels(o, deadline);
    if (!master.ok()) co_return Status::Error(o.Endpoint() + ": " + master.status().message());
    if (*master != o.Endpoint()) co_return Status::Error(RedisNotTheSentinelsMaster(o.Endpoint(), *master));
  }
  endpoint_ = o.Endpoint();
  asio::steady_timer timer(co_await asio::this_coro::executor);
  AbortAt(&timer, deadline);
  if (Status s = co_await Open(o.host, o.port); !s.ok()) co_return s;
  // Logging in is a command like any other: op_timeout bounds it, as the
  // blocking driver's socket timeout does.
  timer.cancel();
  if (o.op_timeout_ms > 0) AbortAt(&timer, MonoNowNs() + int64_t(o.op_timeout_ms) * kNsPerMs);
  std::string error;
  bool ok = co_await LogIn(o, &error);
  timer.cancel();
  if (!ok) {
    Close();
    co_return Status::Error(error);
  }
  co_return Status::Ok();
}

Task<bool> RedisAsyncDriver::LogIn(const ConnectOptions& o, std::string* error) {
  bool ok = true;
  const std::vector<RedisLoginStep> steps = RedisLogin(o);
  for (const RedisLoginStep& step : steps) {
    ok = co_await Words(step.words, error);
    if (!ok) {
      *error = step.what + ": " + *error;
      break;
    }
  }
  if (ok && o.session == "read-write") {
    StatusOr<std::string> role = co_await Role();
    ok = role.ok() && *role == "master";
    if (!ok) *error = role.ok() ? RedisNotAMaster(endpoint_, *role) : role.status().message();
  }
  co_return ok;
}

Task<StatusOr<std::string>> RedisAsyncDriver::AskSentinels(const ConnectOptions& o, int64_t deadline_ns) {
  std::string why;
  const size_t n = o.sentinels.size();
  for (size_t i = 0; i < n; ++i) {
    // Each sentinel gets a share of what is left, so that one that does not
    // answer leaves time for the next; the last share is the data node's.
    const int64_t share = (deadline_ns - MonoNowNs()) / int64_t(n - i + 1);
    asio::steady_timer timer(co_await asio::this_coro::executor);
    AbortAt(&timer, MonoNowNs() + share);
    StatusOr<std::string> master = co_await AskSentinel(o.sentinels[i], o);
    timer.cancel();
    Close();
    if (master.ok()) co_return master;
    why = master.status().message();
    if (aborted_ && !timed_out_) break;  // the runner stopped this worker
    aborted_ = timed_out_ = false;
  }
  co_return Status::Error("no sentinel named the master " + o.sentinel_master + " (the last: " + why + ")");
}

Task<bool> RedisAsyncDriver::Words(const std::vector<std::string>& words, std::string* error) {
  OpResult r = co_await Send(words, int(std::min(words.size(), RedisCommands::kMaxWords)), false, error);
  co_return r.outcome == Outcome::kOk;
}

Task<Status> RedisAsyncDriver::Prepare(const std::vector<StatementSpec>& statements) {
  co_return commands_.Compile(statements);
}

Task<bool> RedisAsyncDriver::Exchange(const std::vector<std::string>& args, int argc, bool write, redisReader* reader,
                                      void** reply, OpResult* lost, std::string* error) {
  out_.clear();
  EncodeResp(args, argc, &out_);
  co_return co_await ExchangeOut(write, reader, reply, lost, error);
}

Task<bool> RedisAsyncDriver::ExchangeOut(bool write, redisReader* reader, void** reply, OpResult* lost,
                                         std::string* error) {
  if (!connected_) {
    lost->outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    co_return false;
  }
  boost::system::error_code ec;
  co_await asio::async_write(socket_, asio::buffer(out_), asio::redirect_error(asio::use_awaitable, ec));
  // Nothing (complete) reached the server.
  if (ec || aborted_) {
    *lost = Lost(false, ec.message(), error);
    co_return false;
  }
  std::string why;
  if (co_await ReadReply(reader, reply, &why)) co_return true;
  *lost = Lost(write, why, error);
  co_return false;
}

Task<bool> RedisAsyncDriver::ReadReply(redisReader* reader, void** reply, std::string* why) {
  *reply = nullptr;
  while (true) {
    if (redisReaderGetReply(reader, reply) != REDIS_OK) {
      *why = reader->errstr;
      co_return false;
    }
    if (*reply) co_return true;
    boost::system::error_code ec;
    const size_t n = co_await socket_.async_read_some(asio::buffer(in_), asio::redirect_error(asio::use_awaitable, ec));
    if (ec || aborted_) {
      *why = ec.message();
      co_return false;
    }
    redisReaderFeed(reader, in_.data(), n);
  }
}

OpResult RedisAsyncDriver::FromReply(std::string* error) const {
  OpResult result;
  switch (reply_.type) {
    case REDIS_REPLY_ERROR:
      result.outcome = ClassifyRedisError(reply_.error);
      result.disk_full = IsRedisDiskFull(reply_.error);
      *error = endpoint_ + ": " + reply_.error;
      break;
    case REDIS_REPLY_INTEGER:
      result.rows = result.value = reply_.integer;
      break;
    case REDIS_REPLY_ARRAY:
      result.rows = reply_.elements;
      break;
    case REDIS_REPLY_NIL:
      result.rows = 0;
      break;
    default:
      result.rows = 1;
  }
  return result;
}

Task<OpResult> RedisAsyncDriver::Send(const std::vector<std::string>& args, int argc, bool write, std::string* error) {
  OpResult result;
  reply_.type = 0;
  void* reply = nullptr;
  if (!co_await Exchange(args, argc, write, reader_, &reply, &result, error)) co_return result;
  co_return FromReply(error);
}

Task<OpResult> RedisAsyncDriver::Execute(const OpRequest& req, std::string* error) {
  out_.clear();
  commands_.Encode(req, &out_);
  OpResult result;
  reply_.type = 0;
  reply_.text = req.text;
  if (req.text) req.text->clear();
  void* reply = nullptr;
  const bool answered = co_await ExchangeOut(commands_.write(req.stmt), reader_, &reply, &result, error);
  reply_.text = nullptr;
  if (!answered) co_return result;
  co_return FromReply(error);
}

void RedisAsyncDriver::Append(const OpRequest& req) {
  if (appended_writes_.empty()) out_.clear();
  commands_.Encode(req, &out_);
  appended_writes_.push_back(commands_.write(req.stmt));
}

void RedisAsyncDriver::AppendEncoded(std::string_view command, bool write) {
  if (appended_writes_.empty()) out_.clear();
  out_.append(command);
  appended_writes_.push_back(write);
}

Task<void> RedisAsyncDriver::ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) {
  co_await WriteAppended();
  co_await ReadAppended(n, results, ended_ns, errors);
}

Task<void> RedisAsyncDriver::WriteAppended() {
  sent_connected_ = connected_;
  send_failed_ = false;
  send_why_.clear();
  if (!connected_) co_return;
  boost::system::error_code ec;
  co_await asio::async_write(socket_, asio::buffer(out_), asio::redirect_error(asio::use_awaitable, ec));
  if (ec || aborted_) {
    send_failed_ = true;
    send_why_ = ec.message();
  }
}

Task<void> RedisAsyncDriver::ReadAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) {
  const bool was_connected = sent_connected_;
  int answered = 0;
  std::string why = send_why_;
  if (was_connected && connected_) {
    while (!send_failed_ && !aborted_ && answered < n) {
      reply_.type = 0;
      void* reply = nullptr;
      if (!co_await ReadReply(reader_, &reply, &why)) break;
      results[answered] = FromReply(&errors[answered]);
      ended_ns[answered++] = MonoNowNs();
    }
  }
  if (answered < n) {
    std::string lost = endpoint_ + ": not connected";
    if (was_connected) Lost(true, why, &lost);
    const int64_t now = MonoNowNs();
    for (int i = answered; i < n; ++i) {
      // Sent (or a write that failed part-way): a write may have run.
      const bool maybe_ran = was_connected && appended_writes_[size_t(i)];
      results[i] = OpResult{LostInFlight(maybe_ran), 0, 0};
      ended_ns[i] = now;
      errors[i] = lost;
    }
  }
  appended_writes_.clear();
  out_.clear();
}

Task<OpResult> RedisAsyncDriver::Control(std::string_view statement, bool write, std::string* error) {
  const std::vector<std::string> words = SplitWords(statement);
  co_return co_await Send(words, int(std::min(words.size(), RedisCommands::kMaxWords)), write, error);
}

std::string_view RedisAsyncDriver::reply_error() const {
  return reply_.type == REDIS_REPLY_ERROR ? std::string_view(reply_.error) : std::string_view();
}

Task<StatusOr<std::vector<SlotRange>>> RedisAsyncDriver::ClusterSlots() {
  // A reader of its own that builds the whole reply; the summary reader has
  // nothing buffered between commands.
  std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(), redisReaderFree);
  const std::vector<std::string> words = {"CLUSTER", "SLOTS"};
  void* reply = nullptr;
  OpResult lost;
  std::string error;
  if (!co_await Exchange(words, 2, false, reader.get(), &reply, &lost, &error)) co_return Status::Error(error);
  StatusOr<std::vector<SlotRange>> ranges = ParseClusterSlots(static_cast<redisReply*>(reply), endpoint_);
  freeReplyObject(reply);
  co_return ranges;
}

Task<StatusOr<std::string>> RedisAsyncDriver::AskSentinel(const std::string& sentinel, const ConnectOptions& o) {
  std::string host;
  int port = 0;
  SplitHostPort(sentinel, &host, &port);
  endpoint_ = "sentinel " + sentinel;
  if (Status s = co_await Open(host, port); !s.ok()) co_return s;
  const std::string& name = o.sentinel_master;
  if (!o.sentinel_password.empty()) {
    std::string error;
    const std::vector<std::string> auth = {"AUTH", o.sentinel_password};
    if (!co_await Words(auth, &error)) co_return Status::Error("authentication: " + error);
  }
  std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(), redisReaderFree);
  const std::vector<std::string> words = {"SENTINEL", "get-master-addr-by-name", name};
  void* reply = nullptr;
  OpResult lost;
  std::string error;
  if (!co_await Exchange(words, 3, false, reader.get(), &reply, &lost, &error)) co_return Status::Error(error);
  StatusOr<std::string> master = ParseSentinelMaster(static_cast<redisReply*>(reply), sentinel, name);
  freeReplyObject(reply);
  co_return master;
}

Task<StatusOr<std::string>> RedisAsyncDriver::Role() {
  std::unique_ptr<redisReader, void (*)(redisReader*)> reader(redisReaderCreate(), redisReaderFree);
  const std::vector<std::string> words = {"ROLE"};
  void* reply = nullptr;
  OpResult lost;
  std::string error;
  if (!co_await Exchange(words, 1, false, reader.get(), &reply, &lost, &error)) co_return Status::Error(error);
  StatusOr<std::string> role = ParseRole(static_cast<redisReply*>(reply), endpoint_);
  freeReplyObject(reply);
  co_return role;
}

}  // namespace stampede::drivers
