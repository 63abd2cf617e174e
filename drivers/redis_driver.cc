#include "drivers/redis_driver.h"

#include <hiredis/hiredis.h>

#include <charconv>

#include "common/strings.h"
#include "drivers/redis_errors.h"

namespace stampede::drivers {
namespace {

constexpr size_t kMaxWords = 64;

timeval ToTimeval(int ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

void AppendParam(const Param& p, std::string* out) {
  if (p.is_int) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), p.i);
    (void)ec;
    out->append(buf, end);
  } else {
    out->append(p.s);
  }
}

}  // namespace

RedisDriver::~RedisDriver() { Close(); }

Status RedisDriver::Connect(const ConnectOptions& options) {
  Close();
  endpoint_ = options.Endpoint();
  ctx_ = redisConnectWithTimeout(options.host.c_str(), options.port,
                                 ToTimeval(options.connect_timeout_ms));
  if (ctx_ == nullptr) return Status::Error(endpoint_ + ": out of memory");
  if (ctx_->err) {
    std::string msg = ctx_->errstr;
    Close();
    return Status::Error(endpoint_ + ": " + msg);
  }
  if (options.op_timeout_ms > 0) redisSetTimeout(ctx_, ToTimeval(options.op_timeout_ms));
  std::vector<std::string> hello;
  if (!options.password.empty()) {
    hello = {"AUTH"};
    if (!options.user.empty()) hello.push_back(options.user);
    hello.push_back(options.password);
  }
  args_.assign(kMaxWords, std::string());
  argv_.assign(kMaxWords, nullptr);
  argvlen_.assign(kMaxWords, 0);
  auto send = [&](const std::vector<std::string>& words, const std::string& what) {
    for (size_t i = 0; i < words.size(); ++i) args_[i] = words[i];
    std::string error;
    OpResult r = Send(static_cast<int>(words.size()), false, &error);
    if (r.outcome != Outcome::kOk) return Status::Error(what + ": " + error);
    return Status::Ok();
  };
  if (!hello.empty()) {
    Status s = send(hello, "authentication");
    if (!s.ok()) {
      Close();
      return s;
    }
  }
  if (!options.database.empty() && options.database != "0") {
    Status s = send({"SELECT", options.database}, "SELECT " + options.database);
    if (!s.ok()) {
      Close();
      return s;
    }
  }
  return Status::Ok();
}

Status RedisDriver::Prepare(const std::vector<StatementSpec>& statements) {
  commands_.clear();
  for (const StatementSpec& spec : statements) {
    Command c;
    c.write = spec.write;
    for (const std::string& word : SplitWords(spec.text)) {
      auto segments = ParsePlaceholders(word, kMaxParams);
      if (!segments.ok()) return segments.status().WithContext(spec.text);
      c.words.push_back(std::move(*segments));
    }
    if (c.words.empty() || c.words.size() > kMaxWords) {
      return Status::Error("bad command '" + spec.text + "'");
    }
    commands_.push_back(std::move(c));
  }
  return Status::Ok();
}

OpResult RedisDriver::Execute(const OpRequest& req, std::string* error) {
  if (!ctx_) {
    *error = endpoint_ + ": not connected";
    return OpResult{Outcome::kUnavailable, 0};
  }
  const Command& c = commands_[req.stmt];
  for (size_t w = 0; w < c.words.size(); ++w) {
    std::string& out = args_[w];
    out.clear();
    for (const Segment& s : c.words[w]) {
      if (s.param < 0) {
        out.append(s.literal);
      } else {
        AppendParam(req.params[s.param], &out);
      }
    }
  }
  return Send(static_cast<int>(c.words.size()), c.write, error);
}

OpResult RedisDriver::Send(int argc, bool write, std::string* error) {
  for (int i = 0; i < argc; ++i) {
    argv_[i] = args_[i].data();
    argvlen_[i] = args_[i].size();
  }
  auto* reply = static_cast<redisReply*>(
      redisCommandArgv(ctx_, argc, argv_.data(), argvlen_.data()));
  OpResult result;
  if (reply == nullptr) {
    result.outcome = write ? Outcome::kAmbiguous : Outcome::kUnavailable;
    *error = endpoint_ + ": connection lost: " + ctx_->errstr;
    Close();
    return result;
  }
  switch (reply->type) {
    case REDIS_REPLY_ERROR:
      result.outcome = ClassifyRedisError(std::string_view(reply->str, reply->len));
      *error = endpoint_ + ": " + std::string(reply->str, reply->len);
      break;
    case REDIS_REPLY_INTEGER:
      result.rows = reply->integer;
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

Status RedisDriver::ExecuteOnce(std::string_view statement) {
  if (!ctx_) return Status::Error(endpoint_ + ": not connected");
  std::vector<std::string> words = SplitWords(statement);
  if (words.empty() || words.size() > kMaxWords) {
    return Status::Error("bad command '" + std::string(statement) + "'");
  }
  for (size_t i = 0; i < words.size(); ++i) args_[i] = std::move(words[i]);
  std::string error;
  OpResult r = Send(static_cast<int>(words.size()), true, &error);
  if (r.outcome != Outcome::kOk) return Status::Error(error);
  return Status::Ok();
}

bool RedisDriver::connected() const { return ctx_ != nullptr; }

void RedisDriver::Close() {
  if (ctx_) redisFree(ctx_);
  ctx_ = nullptr;
}

}  // namespace stampede::drivers
