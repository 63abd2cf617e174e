#include "drivers/mysql_driver.h"

#include <cppconn/connection.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <mutex>

#include "drivers/mysql_errors.h"

namespace stampede::drivers {
namespace {

std::string Describe(const sql::SQLException& e) {
  return std::to_string(e.getErrorCode()) + " (" + e.getSQLState() + "): " + e.what();
}

}  // namespace

sql::Driver* MysqlConnectorDriver() {
  static std::once_flag once;
  static sql::Driver* driver = nullptr;
  std::call_once(once, [] { driver = sql::mysql::get_mysql_driver_instance(); });
  return driver;
}

MysqlDriver::MysqlDriver() { MysqlConnectorDriver()->threadInit(); }

MysqlDriver::~MysqlDriver() {
  Close();
  MysqlConnectorDriver()->threadEnd();
}

Status MysqlDriver::Connect(const ConnectOptions& options) {
  Close();
  endpoint_ = options.Endpoint();
  sql::ConnectOptionsMap props;
  props["hostName"] = sql::SQLString("tcp://" + options.host);
  props["port"] = options.port;
  props["userName"] = sql::SQLString(options.user);
  props["password"] = sql::SQLString(options.password);
  int timeout_s = (options.connect_timeout_ms + 999) / 1000;
  props["OPT_CONNECT_TIMEOUT"] = timeout_s < 1 ? 1 : timeout_s;
  props["OPT_RECONNECT"] = false;
  if (options.op_timeout_ms > 0) {
    // The client library counts whole seconds.
    int op_s = (options.op_timeout_ms + 999) / 1000;
    props["OPT_READ_TIMEOUT"] = op_s;
    props["OPT_WRITE_TIMEOUT"] = op_s;
  }
  try {
    conn_.reset(MysqlConnectorDriver()->connect(props));
    if (!options.database.empty()) conn_->setSchema(options.database);
    conn_->setAutoCommit(true);
    if (options.session == "read-write") {
      std::unique_ptr<sql::Statement> st(conn_->createStatement());
      std::unique_ptr<sql::ResultSet> rs(st->executeQuery(kMysqlReadOnlyQuery));
      if (rs->next() && rs->getInt(1) != 0) {
        conn_.reset();
        return Status::Error(MysqlReadOnly(endpoint_));
      }
    }
  } catch (const sql::SQLException& e) {
    conn_.reset();
    return Status::Error(endpoint_ + ": " + Describe(e));
  }
  return Status::Ok();
}

Status MysqlDriver::ExecuteOnce(std::string_view statement) {
  if (!conn_) return Status::Error(endpoint_ + ": not connected");
  try {
    std::unique_ptr<sql::Statement> st(conn_->createStatement());
    st->execute(sql::SQLString(statement.data(), statement.size()));
  } catch (const sql::SQLException& e) {
    if (IsMysqlConnectionError(e.getErrorCode())) Close();
    return Status::Error(endpoint_ + ": " + Describe(e));
  }
  return Status::Ok();
}

bool MysqlDriver::connected() const { return conn_ != nullptr; }

void MysqlDriver::Close() {
  if (!conn_) return;
  try {
    conn_->close();
  } catch (...) {
  }
  conn_.reset();
}

}  // namespace stampede::drivers
