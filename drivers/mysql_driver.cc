#include "drivers/mysql_driver.h"

#include <cppconn/connection.h>
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <mutex>

#include "drivers/mysql_errors.h"
#include "drivers/statement_template.h"

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
  } catch (const sql::SQLException& e) {
    conn_.reset();
    return Status::Error(endpoint_ + ": " + Describe(e));
  }
  return Status::Ok();
}

Status MysqlDriver::Prepare(const std::vector<StatementSpec>& statements) {
  if (!conn_) return Status::Error(endpoint_ + ": not connected");
  prepared_.clear();
  for (const StatementSpec& spec : statements) {
    Prepared p;
    auto text = ToQuestionMarks(spec.text, kMaxParams, &p.order);
    if (!text.ok()) return text.status();
    try {
      p.stmt.reset(conn_->prepareStatement(*text));
    } catch (const sql::SQLException& e) {
      return Status::Error(endpoint_ + ": preparing statement: " + Describe(e));
    }
    p.write = spec.write;
    p.scalar = spec.scalar;
    prepared_.push_back(std::move(p));
  }
  return Status::Ok();
}

OpResult MysqlDriver::Execute(const OpRequest& req, std::string* error) {
  OpResult result;
  if (!conn_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    return result;
  }
  Prepared& p = prepared_[req.stmt];
  try {
    result.rows = Call(req, &result.value);
  } catch (const sql::SQLException& e) {
    int code = e.getErrorCode();
    result.outcome = ClassifyMysqlError(code, p.write);
    *error = endpoint_ + ": " + Describe(e);
    // 1047, 1180: this Galera node is not in the primary component;
    // another endpoint may be.
    if (IsMysqlConnectionError(code) || code == 1047 || code == 1180) Close();
  } catch (const std::exception& e) {
    result.outcome = Outcome::kFatal;
    *error = endpoint_ + ": " + e.what();
  }
  return result;
}

int64_t MysqlDriver::Call(const OpRequest& req, int64_t* value) {
  Prepared& p = prepared_[req.stmt];
  for (size_t i = 0; i < p.order.size(); ++i) {
    const Param& v = req.params[p.order[i]];
    if (v.is_int) {
      p.stmt->setInt64(static_cast<unsigned>(i + 1), v.i);
    } else {
      p.stmt->setString(static_cast<unsigned>(i + 1), sql::SQLString(v.s.data(), v.s.size()));
    }
  }
  // The legacy connector does not implement getUpdateCount() for prepared
  // statements, so the statement's kind picks the call.
  if (p.write) return p.stmt->executeUpdate();
  std::unique_ptr<sql::ResultSet> rs(p.stmt->executeQuery());
  int64_t rows = 0;
  while (rs->next()) {
    if (rows++ == 0 && p.scalar && value) *value = rs->getInt64(1);
  }
  return rows;
}

OpResult MysqlDriver::Control(std::string_view statement, bool write, std::string* error) {
  OpResult result;
  if (!conn_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    return result;
  }
  // On the session, like the prepared statements (autocommit stays on:
  // BEGIN opens a transaction until COMMIT or ROLLBACK).
  try {
    if (!control_) control_.reset(conn_->createStatement());
    control_->execute(sql::SQLString(statement.data(), statement.size()));
  } catch (const sql::SQLException& e) {
    const int code = e.getErrorCode();
    result.outcome = ClassifyMysqlError(code, write);
    *error = endpoint_ + ": " + Describe(e) + " (at " + std::string(statement) + ")";
    if (IsMysqlConnectionError(code) || code == 1047 || code == 1180) Close();
  } catch (const std::exception& e) {
    result.outcome = Outcome::kFatal;
    *error = endpoint_ + ": " + e.what();
  }
  return result;
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
  prepared_.clear();
  control_.reset();
  if (!conn_) return;
  try {
    conn_->close();
  } catch (...) {
  }
  conn_.reset();
}

}  // namespace stampede::drivers
