#include "drivers/postgres_async_driver.h"

#include <libpq-fe.h>
#include <sys/epoll.h>

#include <boost/asio/steady_timer.hpp>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>

#include "common/clock.h"
#include "common/strings.h"
#include "drivers/postgres_errors.h"

namespace stampede::drivers {

PostgresAsyncDriver::PostgresAsyncDriver(const boost::asio::any_io_executor& executor) : waiter_(executor) {
  steps_ = &waiter_;
}

PostgresAsyncDriver::~PostgresAsyncDriver() { Close(); }

void PostgresAsyncDriver::Close() {
  waiter_.Unwatch(conn_ ? PQsocket(conn_) : -1);
  if (conn_) PQfinish(conn_);
  conn_ = nullptr;
}

OpResult PostgresAsyncDriver::Lost(bool write, std::string* error) {
  OpResult r;
  r.outcome = LostInFlight(write);
  *error = endpoint_ + ": connection lost" +
           (waiter_.aborted() ? std::string() : ": " + OneLine(conn_ ? PQerrorMessage(conn_) : ""));
  Close();
  return r;
}

Task<Status> PostgresAsyncDriver::Connect(const ConnectOptions& o) {
  Close();
  endpoint_ = o.Endpoint();
  const std::string port = std::to_string(o.port);
  // The isolation level as the server's option for this session:
  // "-c default_transaction_isolation=repeatable\ read".
  std::string options;
  if (!o.isolation.empty()) {
    options = "-c default_transaction_isolation=";
    for (char c : o.isolation) {
      if (c == ' ') options += "\\";
      options += char(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  const char* keys[] = {"host",    "port", "user", "password", "dbname", "application_name", "target_session_attrs",
                        "options", nullptr};
  const char* vals[] = {o.host.c_str(),
                        port.c_str(),
                        o.user.empty() ? nullptr : o.user.c_str(),
                        o.password.empty() ? nullptr : o.password.c_str(),
                        o.database.empty() ? nullptr : o.database.c_str(),
                        "stampede",
                        o.session.empty() ? nullptr : o.session.c_str(),
                        options.empty() ? nullptr : options.c_str(),
                        nullptr};
  conn_ = PQconnectStartParams(keys, vals, 0);
  if (!conn_) co_return Status::Error(endpoint_ + ": out of memory");
  if (PQstatus(conn_) == CONNECTION_BAD) {
    Status s = Status::Error(endpoint_ + ": " + OneLine(PQerrorMessage(conn_)));
    Close();
    co_return s;
  }
  // libpq's connect_timeout holds for its blocking connect only.
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  timer.expires_after(std::chrono::milliseconds(o.connect_timeout_ms > 0 ? o.connect_timeout_ms : 5000));
  timer.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) waiter_.Abort();
  });
  PostgresPollingStatusType st = PGRES_POLLING_WRITING;
  while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
    waiter_.Watch(PQsocket(conn_));
    // (No co_await inside ?: : GCC 12 miscompiles it.)
    bool ready;
    if (st == PGRES_POLLING_READING) {
      ready = co_await waiter_.Readable();
    } else {
      ready = co_await waiter_.Writable();
    }
    if (!ready) break;
    st = PQconnectPoll(conn_);
  }
  timer.cancel();
  if (st != PGRES_POLLING_OK) {
    Status s = Status::Error(endpoint_ + ": " +
                             (waiter_.aborted() && st != PGRES_POLLING_FAILED ? "timed out connecting (connect_timeout)"
                                                                              : OneLine(PQerrorMessage(conn_))));
    Close();
    co_return s;
  }
  PQsetnonblocking(conn_, 1);
  waiter_.Watch(PQsocket(conn_));
  co_return Status::Ok();
}

Task<bool> PostgresAsyncDriver::Flush() {
  while (true) {
    const int r = PQflush(conn_);
    if (r == 0) co_return true;
    if (r < 0) co_return false;
    if (!co_await waiter_.Writable()) co_return false;
    if (!PQconsumeInput(conn_)) co_return false;
  }
}

PostgresAsyncDriver::Taken PostgresAsyncDriver::TakeResults(OpResult* result, bool scalar, bool* failed,
                                                            std::string* error, std::string* text) {
  while (true) {
    if (PQisBusy(conn_)) return Taken::kMore;
    PGresult* res = PQgetResult(conn_);
    if (!res) return PQstatus(conn_) != CONNECTION_BAD ? Taken::kDone : Taken::kLost;
    switch (PQresultStatus(res)) {
      case PGRES_TUPLES_OK:
        result->rows = PQntuples(res);
        if (scalar && PQntuples(res) > 0 && PQnfields(res) > 0) {
          const char* v = PQgetvalue(res, 0, 0);
          std::from_chars(v, v + PQgetlength(res, 0, 0), result->value);
          if (text) text->assign(v, size_t(PQgetlength(res, 0, 0)));
        }
        break;
      case PGRES_COMMAND_OK: {
        const char* n = PQcmdTuples(res);
        int64_t rows = 0;
        std::from_chars(n, n + std::char_traits<char>::length(n), rows);
        result->rows = rows;
        break;
      }
      case PGRES_PIPELINE_ABORTED:
        // A read after a failed one in its pipeline group: never run.
        if (!*failed) {
          result->outcome = Outcome::kRetryable;
          *error = endpoint_ + ": not run: a statement before it in its pipeline failed";
          *failed = true;
        }
        break;
      default:
        if (!*failed) {
          const char* state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
          const char* msg = PQresultErrorMessage(res);
          result->outcome = ClassifyPostgresError(state ? state : "", msg ? msg : "");
          result->disk_full = IsPostgresDiskFull(state ? state : "");
          *error = endpoint_ + ": " + (state ? std::string(state) + " " : "") + OneLine(msg);
          *failed = true;
        }
    }
    PQclear(res);
  }
}

Task<bool> PostgresAsyncDriver::Collect(OpResult* result, bool scalar, std::string* error) {
  bool failed = false;
  while (true) {
    const Taken taken = TakeResults(result, scalar, &failed, error);
    if (taken != Taken::kMore) co_return taken == Taken::kDone;
    co_await waiter_.ReadableNow();
    if (!waiter_.ok() || !PQconsumeInput(conn_)) co_return false;
  }
}

Task<Status> PostgresAsyncDriver::Prepare(const std::vector<StatementSpec>& statements) {
  statements_.clear();
  for (size_t i = 0; i < statements.size(); ++i) {
    if (!conn_) co_return Status::Error(endpoint_ + ": not connected");
    statements_.push_back({"s" + std::to_string(i), statements[i].write, statements[i].scalar});
    if (!PQsendPrepare(conn_, statements_.back().name.c_str(), statements[i].text.c_str(), 0, nullptr) ||
        !co_await Flush()) {
      std::string error;
      Lost(false, &error);
      co_return Status::Error(error);
    }
    OpResult r;
    std::string error;
    if (!co_await Collect(&r, false, &error)) {
      Lost(false, &error);
      co_return Status::Error(error);
    }
    if (r.outcome != Outcome::kOk)
      co_return Status::Error(endpoint_ + ": preparing statement: " + error.substr(error.find(": ") + 2));
  }
  co_return Status::Ok();
}

Task<OpResult> PostgresAsyncDriver::Execute(const OpRequest& req, std::string* error) {
  return ExecuteInSteps(*this, req, error);
}

bool PostgresAsyncDriver::Begin(const OpRequest& req, OpResult* result, std::string* error) {
  *result = OpResult{};
  if (!conn_) {
    result->outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    return true;
  }
  const char* const* params = SetParams(req);
  if (req.text) req.text->clear();
  current_ = &statements_[size_t(req.stmt)];
  request_ = &req;
  failed_ = false;
  flushing_ = true;
  if (!PQsendQueryPrepared(conn_, current_->name.c_str(), req.nparams, params, nullptr, nullptr, 0)) {
    *result = Lost(false, error);
    return true;
  }
  return Flushed(PQflush(conn_), result, error);
}

bool PostgresAsyncDriver::Proceed(OpResult* result, std::string* error) {
  if (!waiter_.ok() || !PQconsumeInput(conn_)) {
    // Until the request is sent whole, nothing of it reached the server.
    *result = Lost(!flushing_ && current_->write, error);
    return true;
  }
  return flushing_ ? Flushed(PQflush(conn_), result, error) : Take(result, error);
}

bool PostgresAsyncDriver::Flushed(int flushed, OpResult* result, std::string* error) {
  if (flushed < 0) {
    *result = Lost(false, error);
    return true;
  }
  if (flushed > 0) {  // a full socket: rare
    waiter_.Expect(EPOLLOUT);
    return false;
  }
  flushing_ = false;
  // Read once before waiting, as pgbench does: the reply is often in
  // already, and then the operation ends without a trip through the
  // readiness set (docs/PERFORMANCE.md, issue 35).
  if (!PQconsumeInput(conn_)) {
    *result = Lost(current_->write, error);
    return true;
  }
  return Take(result, error);
}

bool PostgresAsyncDriver::Take(OpResult* result, std::string* error) {
  switch (TakeResults(result, current_->scalar, &failed_, error, request_->text)) {
    case Taken::kDone:
      return true;
    case Taken::kLost:
      *result = Lost(current_->write, error);
      return true;
    case Taken::kMore:
      break;
  }
  waiter_.Expect(EPOLLIN);
  return false;
}

const char* const* PostgresAsyncDriver::SetParams(const OpRequest& req) {
  const size_t n = size_t(req.nparams);
  const char** out = pointers_.data();
  if (n > pointers_.size()) {
    if (wide_pointers_.size() < n) wide_pointers_.resize(n);
    out = wide_pointers_.data();
  }
  for (size_t i = 0; i < n; ++i) {
    const Param& p = req.param(int(i));
    if (p.is_int && i < ints_.size()) {
      // 20 characters at most, and the terminator.
      char* text = ints_[i].data();
      *std::to_chars(text, text + ints_[i].size() - 1, p.i).ptr = '\0';
      out[i] = text;
      continue;
    }
    if (values_.size() < n) values_.resize(n);
    std::string& v = values_[i];
    if (p.is_int) {
      char buf[24];
      v.assign(buf, std::to_chars(buf, buf + sizeof(buf), p.i).ptr);
    } else {
      v.assign(p.s.data(), p.s.size());
    }
    out[i] = v.c_str();
  }
  return out;
}

void PostgresAsyncDriver::SyncReads() {
  if (!reads_open_) return;
  reads_open_ = false;
  appended_.back().sync_after = true;
  if (!append_failed_ && !PQpipelineSync(conn_)) append_failed_ = true;
}

void PostgresAsyncDriver::Append(const OpRequest& req) {
  const Statement& st = statements_[size_t(req.stmt)];
  const bool write = st.write;
  if (write) SyncReads();
  appended_.push_back(Appended{write, st.scalar, write});
  if (!conn_ || append_failed_) return;
  if (PQpipelineStatus(conn_) == PQ_PIPELINE_OFF && !PQenterPipelineMode(conn_)) {
    append_failed_ = true;
    return;
  }
  // libpq copies the parameters into its output buffer here.
  const char* const* params = SetParams(req);
  append_failed_ = !PQsendQueryPrepared(conn_, st.name.c_str(), req.nparams, params, nullptr, nullptr, 0) ||
                   (write && !PQpipelineSync(conn_));
  reads_open_ = !write;
}

Task<bool> PostgresAsyncDriver::AwaitSync() {
  while (PQisBusy(conn_)) {
    co_await waiter_.ReadableNow();
    if (!waiter_.ok() || !PQconsumeInput(conn_)) co_return false;
  }
  PGresult* res = PQgetResult(conn_);
  const bool synced = res && PQresultStatus(res) == PGRES_PIPELINE_SYNC;
  PQclear(res);
  co_return synced&& PQstatus(conn_) != CONNECTION_BAD;
}

Task<void> PostgresAsyncDriver::ExecuteAppended(int n, OpResult* results, int64_t* ended_ns, std::string* errors) {
  const bool was_connected = conn_ != nullptr;
  if (was_connected) SyncReads();
  bool alive = was_connected && !append_failed_ && co_await Flush();
  int answered = 0;
  while (alive && answered < n) {
    const Appended& op = appended_[size_t(answered)];
    results[answered] = OpResult{};
    alive =
        co_await Collect(&results[answered], op.scalar, &errors[answered]) && (!op.sync_after || co_await AwaitSync());
    if (!alive) break;
    ended_ns[answered++] = MonoNowNs();
  }
  if (answered < n) {
    std::string lost = endpoint_ + ": not connected";
    if (was_connected) Lost(true, &lost);
    const int64_t now = MonoNowNs();
    for (int i = answered; i < n; ++i) {
      // Sent, or part of a write that failed part-way: a write may have run.
      const bool maybe_ran = was_connected && appended_[size_t(i)].write;
      results[i] = OpResult{LostInFlight(maybe_ran), 0, 0};
      ended_ns[i] = now;
      errors[i] = lost;
    }
  } else if (PQpipelineStatus(conn_) != PQ_PIPELINE_OFF) {
    PQexitPipelineMode(conn_);
  }
  appended_.clear();
  append_failed_ = false;
  reads_open_ = false;
}

Task<OpResult> PostgresAsyncDriver::Control(std::string_view statement, bool write, std::string* error) {
  OpResult result;
  if (!conn_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    co_return result;
  }
  control_.assign(statement.data(), statement.size());
  if (!PQsendQuery(conn_, control_.c_str()) || !co_await Flush()) co_return Lost(false, error);
  if (!co_await Collect(&result, false, error)) co_return Lost(write, error);
  co_return result;
}

}  // namespace stampede::drivers
