// MySQL, MariaDB, Galera and TiDB on the MariaDB C API's non-blocking calls
// (mysql_real_connect_start/_cont, mysql_stmt_execute_start/_cont, ...),
// each suspended call resumed when its socket is ready. Statements are
// server-side prepared; parameters are bound in place (strings are not
// copied).
#ifndef STAMPEDE_DRIVERS_MYSQL_ASYNC_DRIVER_H_
#define STAMPEDE_DRIVERS_MYSQL_ASYNC_DRIVER_H_

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "drivers/async_driver.h"
#include "drivers/socket_waiter.h"

typedef struct st_mysql MYSQL;
typedef struct st_mysql_stmt MYSQL_STMT;
typedef struct st_mysql_bind MYSQL_BIND;

namespace stampede::drivers {

class MysqlAsyncDriver final : public AsyncDriver {
 public:
  explicit MysqlAsyncDriver(const boost::asio::any_io_executor& executor);
  ~MysqlAsyncDriver() override;

  Task<Status> Connect(const ConnectOptions& options) override;
  Task<Status> Prepare(const std::vector<StatementSpec>& statements) override;
  Task<OpResult> Execute(const OpRequest& request, std::string* error) override;
  bool Begin(const OpRequest& request, OpResult* result, std::string* error) override;
  bool Proceed(OpResult* result, std::string* error) override;
  Task<OpResult> Control(std::string_view statement, bool write, std::string* error) override;
  bool connected() const override { return mysql_ != nullptr; }
  void Abort() override { waiter_.Abort(); }
  void Close() override;

 private:
  struct Statement;
  OpResult Failed(unsigned code, const std::string& message, bool write, std::string* error);
  // session: read-write: "" if the server accepts writes, else why not.
  Task<std::string> ReadOnlyProblem();
  // Begin's and Proceed's parts: the suspended call of the current stage,
  // resumed; the operation run on until it must wait (false) or ends; a
  // stage's completed call taken, and the next stage's call started
  // (false: the operation has ended).
  int Continue(int ready);
  bool Advance(OpResult* result, std::string* error);
  bool NextStage(OpResult* result, std::string* error);
  void Fetch(Statement& st, OpResult* result);
  static bool Rebind(Statement& st, const OpRequest& request);
  bool Bind(Statement& st);

  // What an operation reads comes first: at 1,000 connections each cache
  // line of a driver is a miss per operation (docs/PERFORMANCE.md, issue
  // 35). The operation in flight: its statement and request, its stage,
  // and the stage's call: the MYSQL_WAIT_* it is suspended on (0:
  // completed) and what it returns.
  enum class Stage : uint8_t { kExecute, kStore, kFree };
  MYSQL* mysql_ = nullptr;
  Statement* current_ = nullptr;
  const OpRequest* request_ = nullptr;
  Stage stage_ = Stage::kExecute;
  char freed_ = 0;  // mysql_stmt_free_result's my_bool
  int status_ = 0;
  int ret_ = 0;
  std::unique_ptr<Statement[]> statements_;  // as Prepare was given them
  SocketWaiter waiter_;
  std::string endpoint_;
  std::vector<MYSQL_BIND> binds_;  // Bind's, handed to the library
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_MYSQL_ASYNC_DRIVER_H_
