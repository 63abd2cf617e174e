#include "drivers/redis_driver.h"

#include <hiredis/hiredis.h>

#include "common/strings.h"
#include "drivers/redis_errors.h"
#include "drivers/redis_slots.h"

namespace stampede::drivers {
namespace {

timeval ToTimeval(int ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

}  // namespace

RedisDriver::RedisDriver() : argv_(RedisCommands::kMaxWords), argvlen_(RedisCommands::kMaxWords) {}

RedisDriver::~RedisDriver() { Close(); }

Status RedisDriver::Connect(const ConnectOptions& options) {
  Close();
  endpoint_ = options.Endpoint();
  ctx_ = redisConnectWithTimeout(options.host.c_str(), options.port, ToTimeval(options.connect_timeout_ms));
  if (ctx_ == nullptr) return Status::Error(endpoint_ + ": out of memory");
  if (ctx_->err) {
    std::string msg = ctx_->errstr;
    Close();
    return Status::Error(endpoint_ + ": " + msg);
  }
  if (options.op_timeout_ms > 0) redisSetTimeout(ctx_, ToTimeval(options.op_timeout_ms));
  auto send = [&](std::vector<std::string> words, const std::string& what) {
    std::string error;
    OpResult r = SendArgs(words, static_cast<int>(words.size()), false, &error);
    if (r.outcome != Outcome::kOk) return Status::Error(what + ": " + error);
    return Status::Ok();
  };
  Status s;
  for (RedisLoginStep& step : RedisLogin(options)) {
    s = send(std::move(step.words), step.what);
    if (!s.ok()) break;
  }
  if (s.ok() && options.session == "read-write") {
    auto* reply = static_cast<redisReply*>(redisCommand(ctx_, "ROLE"));
    StatusOr<std::string> role =
        reply ? ParseRole(reply, endpoint_) : Status::Error(endpoint_ + ": ROLE: " + std::string(ctx_->errstr));
    if (reply) freeReplyObject(reply);
    s = !role.ok()          ? role.status()
        : *role == "master" ? Status::Ok()
                            : Status::Error(RedisNotAMaster(endpoint_, *role));
  }
  if (!s.ok()) Close();
  return s;
}

OpResult RedisDriver::SendArgs(const std::vector<std::string>& args, int argc, bool write, std::string* error,
                               std::string* reply_error) {
  OpResult result;
  if (!ctx_) {
    *error = endpoint_ + ": not connected";
    result.outcome = Outcome::kUnavailable;
    return result;
  }
  for (int i = 0; i < argc; ++i) {
    argv_[i] = args[i].data();
    argvlen_[i] = args[i].size();
  }
  auto* reply = static_cast<redisReply*>(redisCommandArgv(ctx_, argc, argv_.data(), argvlen_.data()));
  if (reply == nullptr) {
    result.outcome = LostInFlight(write);
    *error = endpoint_ + ": connection lost: " + ctx_->errstr;
    Close();
    return result;
  }
  switch (reply->type) {
    case REDIS_REPLY_ERROR:
      result.outcome = ClassifyRedisError(std::string_view(reply->str, reply->len));
      *error = endpoint_ + ": " + std::string(reply->str, reply->len);
      if (reply_error) reply_error->assign(reply->str, reply->len);
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
  return result;
}

StatusOr<std::vector<SlotRange>> RedisDriver::ClusterSlots() {
  if (!ctx_) return Status::Error(endpoint_ + ": not connected");
  auto* reply = static_cast<redisReply*>(redisCommand(ctx_, "CLUSTER SLOTS"));
  if (reply == nullptr) {
    std::string msg = ctx_->errstr;
    Close();
    return Status::Error(endpoint_ + ": connection lost: " + msg);
  }
  StatusOr<std::vector<SlotRange>> ranges = ParseClusterSlots(reply, endpoint_);
  freeReplyObject(reply);
  return ranges;
}

Status RedisDriver::ExecuteOnce(std::string_view statement) {
  if (!ctx_) return Status::Error(endpoint_ + ": not connected");
  std::vector<std::string> words = SplitWords(statement);
  if (words.empty() || words.size() > RedisCommands::kMaxWords) {
    return Status::Error("bad command '" + std::string(statement) + "'");
  }
  std::string error;
  OpResult r = SendArgs(words, static_cast<int>(words.size()), true, &error);
  if (r.outcome != Outcome::kOk) return Status::Error(error);
  return Status::Ok();
}

bool RedisDriver::connected() const { return ctx_ != nullptr; }

void RedisDriver::Close() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
}

}  // namespace stampede::drivers
