// MySQL-wire blocking connection on mysql-connector-c++'s legacy API
// (mysql, mariadb, galera, tidb), for one-off statements; workers use
// drivers/mysql_async_driver.h.
//
// The connector needs per-thread initialisation: a MysqlDriver calls
// threadInit() when constructed and threadEnd() when destroyed, so it must be
// constructed and destroyed on the thread that uses it.
#ifndef STAMPEDE_DRIVERS_MYSQL_DRIVER_H_
#define STAMPEDE_DRIVERS_MYSQL_DRIVER_H_

#include <memory>
#include <string>

#include "drivers/driver.h"

namespace sql {
class Connection;
class Driver;
}  // namespace sql

namespace stampede::drivers {

// The connector's process-wide driver. Its first creation is not
// thread-safe, so everything in stampede gets it from here.
sql::Driver* MysqlConnectorDriver();

class MysqlDriver : public Driver {
 public:
  MysqlDriver();
  ~MysqlDriver() override;

  Status Connect(const ConnectOptions& options) override;
  Status ExecuteOnce(std::string_view statement) override;
  bool connected() const override;
  void Close() override;

 private:
  std::unique_ptr<sql::Connection> conn_;
  std::string endpoint_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_MYSQL_DRIVER_H_
