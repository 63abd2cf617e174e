// MySQL-wire driver on mysql-connector-c++'s legacy API (mysql, mariadb,
// galera, tidb).
//
// The connector needs per-thread initialisation: a MysqlDriver calls
// threadInit() when constructed and threadEnd() when destroyed, so it must be
// constructed and destroyed on the worker thread that uses it.
#ifndef STAMPEDE_DRIVERS_MYSQL_DRIVER_H_
#define STAMPEDE_DRIVERS_MYSQL_DRIVER_H_

#include <memory>
#include <string>
#include <vector>

#include "drivers/driver.h"

namespace sql {
class Connection;
class PreparedStatement;
class Statement;
}  // namespace sql

namespace sql {
class Driver;
}  // namespace sql

namespace stampede::drivers {

// The connector's process-wide driver. Its first creation is not
// thread-safe, so everything in stampede gets it from here.
sql::Driver* MysqlConnectorDriver();

class MysqlDriver : public Driver, public TransactionalDriver {
 public:
  MysqlDriver();
  ~MysqlDriver() override;

  Status Connect(const ConnectOptions& options) override;
  Status Prepare(const std::vector<StatementSpec>& statements) override;
  OpResult Execute(const OpRequest& request, std::string* error) override;
  Status ExecuteOnce(std::string_view statement) override;
  OpResult Control(std::string_view statement, bool write, std::string* error) override;
  bool connected() const override;
  void Close() override;

 private:
  struct Prepared {
    std::unique_ptr<sql::PreparedStatement> stmt;
    std::vector<int> order;  // parameter index per '?'
    bool write = false;
    bool scalar = false;
  };
  // Runs one prepared call; throws sql::SQLException.
  int64_t Call(const OpRequest& req, int64_t* value = nullptr);
  std::unique_ptr<sql::Connection> conn_;
  std::vector<Prepared> prepared_;
  std::unique_ptr<sql::Statement> control_;  // BEGIN, COMMIT, ROLLBACK
  std::string endpoint_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_MYSQL_DRIVER_H_
