#include "drivers/mysql_async_driver.h"

#include <mysql.h>
#include <sys/epoll.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <chrono>
#include <cstring>
#include <type_traits>

#include "drivers/mysql_errors.h"
#include "drivers/statement_template.h"

namespace stampede::drivers {
namespace {

// The epoll events a suspended call (status: the MYSQL_WAIT_* it waits
// for) needs; 0: none.
uint32_t WaitEvents(int status) {
  if (status & MYSQL_WAIT_WRITE) return uint32_t(EPOLLOUT);
  return status & (MYSQL_WAIT_READ | MYSQL_WAIT_EXCEPT) ? uint32_t(EPOLLIN) : 0;
}

// What to resume the call with: what it waited for if the wait ended well;
// a cut wait resumes it too (the socket is shut down, so the library sees
// the end and returns).
int Ready(int status, bool ok) {
  return ok ? status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE | MYSQL_WAIT_EXCEPT) : status;
}

// Resumes a suspended non-blocking call until it completes; cont(ready)
// resumes it.
template <typename Cont>
Task<void> Drive(SocketWaiter& waiter, MYSQL* mysql, int status, Cont cont) {
  while (status != 0) {
    waiter.Watch(int(mysql_get_socket(mysql)));
    const uint32_t events = WaitEvents(status);
    if (events != 0) co_await waiter.EventsNow(events);
    status = cont(Ready(status, events == 0 || waiter.ok()));
  }
}

}  // namespace

// A prepared statement, its parameter bindings reused for every execution.
// What an execution reads comes first, its parameters' slots in the
// statement itself, and a driver's statements lie in one array: at 1,000
// connections each separate block is a cache miss per operation
// (docs/PERFORMANCE.md, issue 35).
struct MysqlAsyncDriver::Statement {
  // Each '?': the request parameter it takes, its value's length or the
  // integer itself (the library reads them through pointers at each
  // execution), and the type and string last handed to the library.
  struct Slot {
    int order = 0;
    enum_field_types type = MYSQL_TYPE_NULL;  // MYSQL_TYPE_NULL: not bound yet
    unsigned long length = 0;
    long long value = 0;
    const char* text = nullptr;
  };
  MYSQL_STMT* stmt = nullptr;
  bool write = false, scalar = false;
  // The library holds a copy of the bindings (mysql_stmt_bind_param), so
  // an integer's value and a string's length change without binding
  // again; a new type or string address needs it. Binding again also
  // sends the parameter types with the next execution.
  bool bound = false;
  size_t nslots = 0;
  Slot* slots = nullptr;             // few's or many's (SetSlots)
  std::array<Slot, kMaxParams> few;  // up to kMaxParams '?', else in many
  std::vector<Slot> many;
  MYSQL_BIND result{};
  long long value = 0;
  // The scalar as text (OpRequest::text): its length first, then fetched.
  MYSQL_BIND text{};
  unsigned long text_length = 0;
  my_bool text_null = 0;

  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() {
    if (stmt) mysql_stmt_close(stmt);
  }
  void SetSlots(const std::vector<int>& order) {
    if (order.size() > few.size()) many.resize(order.size());
    slots = order.size() > few.size() ? many.data() : few.data();
    nslots = order.size();
    for (size_t i = 0; i < nslots; ++i) slots[i].order = order[i];
  }
};

static_assert(std::is_same_v<my_bool, char>, "MysqlAsyncDriver::freed_ holds a my_bool");

MysqlAsyncDriver::MysqlAsyncDriver(const boost::asio::any_io_executor& executor) : waiter_(executor) {
  steps_ = &waiter_;
}

MysqlAsyncDriver::~MysqlAsyncDriver() { Close(); }

void MysqlAsyncDriver::Close() {
  statements_.reset();
  waiter_.Unwatch(mysql_ ? int(mysql_get_socket(mysql_)) : -1);
  if (mysql_) mysql_close(mysql_);
  mysql_ = nullptr;
}

OpResult MysqlAsyncDriver::Failed(unsigned code, const std::string& message, bool write, std::string* error) {
  OpResult r;
  r.outcome = ClassifyMysqlError(int(code), write);
  r.disk_full = IsMysqlDiskFull(int(code));
  *error = endpoint_ + ": " + std::to_string(code) + ": " + (waiter_.aborted() ? "connection cut" : message);
  // 1047, 1180: this Galera node is not in the primary component; 1290:
  // this server is read-only (a replica, or a primary demoted by a
  // failover). Another endpoint may be the one to write to.
  if (IsMysqlConnectionError(int(code)) || code == 1047 || code == 1180 || code == 1290 || waiter_.aborted()) Close();
  return r;
}

Task<Status> MysqlAsyncDriver::Connect(const ConnectOptions& o) {
  Close();
  endpoint_ = o.Endpoint();
  mysql_ = mysql_init(nullptr);
  if (!mysql_) co_return Status::Error(endpoint_ + ": out of memory");
  mysql_options(mysql_, MYSQL_OPT_NONBLOCK, nullptr);
  // Run on every connect, and again on each reconnect.
  const std::string isolation = "SET SESSION TRANSACTION ISOLATION LEVEL " + o.isolation;
  if (!o.isolation.empty()) mysql_options(mysql_, MYSQL_INIT_COMMAND, isolation.c_str());
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  timer.expires_after(std::chrono::milliseconds(o.connect_timeout_ms > 0 ? o.connect_timeout_ms : 5000));
  timer.async_wait([this](const boost::system::error_code& ec) {
    if (!ec) waiter_.Abort();
  });
  MYSQL* ret = nullptr;
  int status =
      mysql_real_connect_start(&ret, mysql_, o.host.c_str(), o.user.c_str(), o.password.c_str(),
                               o.database.empty() ? nullptr : o.database.c_str(), unsigned(o.port), nullptr, 0);
  co_await Drive(waiter_, mysql_, status, [&](int ready) { return mysql_real_connect_cont(&ret, mysql_, ready); });
  // The read-only check is part of connecting: connect_timeout bounds it.
  // (An if, not ?: : GCC 12 mishandles a co_await inside a conditional
  // expression.)
  std::string refused;
  if (ret && o.session == "read-write") refused = co_await ReadOnlyProblem();
  timer.cancel();
  if (!ret || !refused.empty()) {
    Status s =
        !refused.empty()
            ? Status::Error(refused)
            : Status::Error(endpoint_ + ": " + std::to_string(mysql_errno(mysql_)) + ": " +
                            (waiter_.aborted() ? "timed out connecting (connect_timeout)" : mysql_error(mysql_)));
    Close();
    co_return s;
  }
  co_return Status::Ok();
}

Task<std::string> MysqlAsyncDriver::ReadOnlyProblem() {
  int ret = 0;
  int status = mysql_real_query_start(&ret, mysql_, kMysqlReadOnlyQuery, std::strlen(kMysqlReadOnlyQuery));
  co_await Drive(waiter_, mysql_, status, [&](int ready) { return mysql_real_query_cont(&ret, mysql_, ready); });
  MYSQL_RES* res = nullptr;
  if (ret == 0) {
    status = mysql_store_result_start(&res, mysql_);
    co_await Drive(waiter_, mysql_, status, [&](int ready) { return mysql_store_result_cont(&res, mysql_, ready); });
  }
  if (!res) {
    co_return endpoint_ + ": " + std::to_string(mysql_errno(mysql_)) + ": " +
        (waiter_.aborted() ? "timed out connecting (connect_timeout)" : mysql_error(mysql_));
  }
  MYSQL_ROW row = mysql_fetch_row(res);  // stored: no wait
  const bool read_only = row && row[0] && std::strcmp(row[0], "0") != 0;
  mysql_free_result(res);
  co_return read_only ? MysqlReadOnly(endpoint_) : "";
}

Task<Status> MysqlAsyncDriver::Prepare(const std::vector<StatementSpec>& statements) {
  statements_ = std::make_unique<Statement[]>(statements.size());
  for (size_t i = 0; i < statements.size(); ++i) {
    const StatementSpec& spec = statements[i];
    if (!mysql_) co_return Status::Error(endpoint_ + ": not connected");
    Statement* st = &statements_[i];
    std::vector<int> order;
    auto text = ToQuestionMarks(spec.text, kMaxStatementParams, &order);
    if (!text.ok()) co_return text.status();
    st->write = spec.write;
    st->scalar = spec.scalar;
    st->stmt = mysql_stmt_init(mysql_);
    int ret = 0;
    int status = mysql_stmt_prepare_start(&ret, st->stmt, text->c_str(), text->size());
    co_await Drive(waiter_, mysql_, status, [&](int ready) { return mysql_stmt_prepare_cont(&ret, st->stmt, ready); });
    if (ret != 0) {
      Status s = Status::Error(endpoint_ + ": preparing statement: " + std::to_string(mysql_stmt_errno(st->stmt)) +
                               ": " + mysql_stmt_error(st->stmt));
      if (IsMysqlConnectionError(int(mysql_stmt_errno(st->stmt)))) Close();
      co_return s;
    }
    st->SetSlots(order);
    if (spec.scalar) {
      st->result.buffer_type = MYSQL_TYPE_LONGLONG;
      st->result.buffer = &st->value;
      st->text.buffer_type = MYSQL_TYPE_STRING;
      st->text.length = &st->text_length;
      st->text.is_null = &st->text_null;
    }
  }
  co_return Status::Ok();
}

Task<OpResult> MysqlAsyncDriver::Execute(const OpRequest& req, std::string* error) {
  return ExecuteInSteps(*this, req, error);
}

bool MysqlAsyncDriver::Begin(const OpRequest& req, OpResult* result, std::string* error) {
  *result = OpResult{};
  if (!mysql_) {
    result->outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    return true;
  }
  Statement& st = statements_[size_t(req.stmt)];
  if (st.nslots > 0 && Rebind(st, req)) st.bound = Bind(st);
  current_ = &st;
  request_ = &req;
  stage_ = Stage::kExecute;
  status_ = mysql_stmt_execute_start(&ret_, st.stmt);
  return Advance(result, error);
}

// Sets each '?' from the request; true if the library must be handed the
// bindings again (Statement::bound).
bool MysqlAsyncDriver::Rebind(Statement& st, const OpRequest& req) {
  bool changed = !st.bound;
  for (size_t i = 0; i < st.nslots; ++i) {
    Statement::Slot& slot = st.slots[i];
    const Param& p = req.param(slot.order);
    if (p.is_int) {
      slot.value = p.i;
      if (slot.type == MYSQL_TYPE_LONGLONG) continue;
      slot.type = MYSQL_TYPE_LONGLONG;
    } else {
      slot.length = p.s.size();
      if (slot.type == MYSQL_TYPE_STRING && slot.text == p.s.data()) continue;
      slot.type = MYSQL_TYPE_STRING;
      slot.text = p.s.data();
    }
    changed = true;
  }
  return changed;
}

// Hands the library the slots' bindings, which it copies (when a type or a
// string's address changed: rare).
bool MysqlAsyncDriver::Bind(Statement& st) {
  binds_.assign(st.nslots, MYSQL_BIND{});
  for (size_t i = 0; i < st.nslots; ++i) {
    Statement::Slot& slot = st.slots[i];
    MYSQL_BIND& b = binds_[i];
    b.buffer_type = slot.type;
    if (slot.type == MYSQL_TYPE_LONGLONG) {
      b.buffer = &slot.value;
    } else {
      b.buffer = const_cast<char*>(slot.text);
      b.length = &slot.length;
    }
  }
  return mysql_stmt_bind_param(st.stmt, binds_.data()) == 0;
}

bool MysqlAsyncDriver::Proceed(OpResult* result, std::string* error) {
  // A cut wait resumes the call too: the socket is shut down, so the
  // library sees the end and returns.
  status_ = Continue(Ready(status_, waiter_.ok()));
  return Advance(result, error);
}

int MysqlAsyncDriver::Continue(int ready) {
  switch (stage_) {
    case Stage::kExecute:
      return mysql_stmt_execute_cont(&ret_, current_->stmt, ready);
    case Stage::kStore:
      return mysql_stmt_store_result_cont(&ret_, current_->stmt, ready);
    case Stage::kFree:
      break;
  }
  return mysql_stmt_free_result_cont(&freed_, current_->stmt, ready);
}

bool MysqlAsyncDriver::Advance(OpResult* result, std::string* error) {
  do {
    while (status_ != 0) {
      const uint32_t events = WaitEvents(status_);
      if (events != 0) {
        waiter_.Watch(int(mysql_get_socket(mysql_)));
        waiter_.Expect(events);
        return false;
      }
      status_ = Continue(Ready(status_, true));
    }
  } while (NextStage(result, error));
  return true;
}

bool MysqlAsyncDriver::NextStage(OpResult* result, std::string* error) {
  Statement& st = *current_;
  switch (stage_) {
    case Stage::kExecute:
      if (ret_ != 0) {
        *result = Failed(mysql_stmt_errno(st.stmt), mysql_stmt_error(st.stmt), st.write, error);
        return false;
      }
      if (mysql_stmt_field_count(st.stmt) == 0) {
        result->rows = int64_t(mysql_stmt_affected_rows(st.stmt));
        return false;
      }
      // A result set: read it all (the rows are counted), the scalar bound.
      if (request_->text) request_->text->clear();
      if (st.scalar) mysql_stmt_bind_result(st.stmt, request_->text ? &st.text : &st.result);
      stage_ = Stage::kStore;
      status_ = mysql_stmt_store_result_start(&ret_, st.stmt);
      return true;
    case Stage::kStore:
      if (ret_ != 0) {
        *result = Failed(mysql_stmt_errno(st.stmt), mysql_stmt_error(st.stmt), false, error);
        return false;
      }
      result->rows = int64_t(mysql_stmt_num_rows(st.stmt));
      if (st.scalar && result->rows > 0) Fetch(st, result);
      stage_ = Stage::kFree;
      status_ = mysql_stmt_free_result_start(&freed_, st.stmt);
      return true;
    case Stage::kFree:
      break;
  }
  return false;
}

// The scalar of a stored result: an integer, or the text the request asks
// for.
void MysqlAsyncDriver::Fetch(Statement& st, OpResult* result) {
  const int fetched = mysql_stmt_fetch(st.stmt);
  std::string* text = request_->text;
  if (!text) {
    if (fetched == 0) result->value = st.value;
  } else if ((fetched == 0 || fetched == MYSQL_DATA_TRUNCATED) && !st.text_null && st.text_length > 0) {
    text->resize(st.text_length);
    MYSQL_BIND column{};
    column.buffer_type = MYSQL_TYPE_STRING;
    column.buffer = text->data();
    column.buffer_length = st.text_length;
    mysql_stmt_fetch_column(st.stmt, &column, 0, 0);
  }
}

Task<OpResult> MysqlAsyncDriver::Control(std::string_view statement, bool write, std::string* error) {
  OpResult result;
  if (!mysql_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    co_return result;
  }
  int ret = 0;
  int status = mysql_real_query_start(&ret, mysql_, statement.data(), statement.size());
  co_await Drive(waiter_, mysql_, status, [&](int ready) { return mysql_real_query_cont(&ret, mysql_, ready); });
  if (ret != 0) co_return Failed(mysql_errno(mysql_), mysql_error(mysql_), write, error);
  if (mysql_field_count(mysql_) > 0) {
    MYSQL_RES* res = nullptr;
    status = mysql_store_result_start(&res, mysql_);
    co_await Drive(waiter_, mysql_, status, [&](int ready) { return mysql_store_result_cont(&res, mysql_, ready); });
    if (res) {
      result.rows = int64_t(mysql_num_rows(res));
      mysql_free_result(res);
    }
  } else {
    result.rows = int64_t(mysql_affected_rows(mysql_));
  }
  co_return result;
}

}  // namespace stampede::drivers
