#include "drivers/postgres_driver.h"

#include <pqxx/pqxx>

#include "common/strings.h"

namespace stampede::drivers {
namespace {

std::string Quote(const std::string& v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

PostgresDriver::PostgresDriver() = default;

PostgresDriver::~PostgresDriver() { Close(); }

std::string PostgresDriver::ConnectionString(const ConnectOptions& o) {
  std::string s = "host=" + Quote(o.host) + " port=" + std::to_string(o.port);
  if (!o.user.empty()) s += " user=" + Quote(o.user);
  if (!o.password.empty()) s += " password=" + Quote(o.password);
  if (!o.database.empty()) s += " dbname=" + Quote(o.database);
  int timeout_s = (o.connect_timeout_ms + 999) / 1000;
  s += " connect_timeout=" + std::to_string(timeout_s < 2 ? 2 : timeout_s);
  s += " application_name=stampede";
  if (!o.session.empty()) s += " target_session_attrs=" + Quote(o.session);
  return s;
}

Status PostgresDriver::Connect(const ConnectOptions& options) {
  Close();
  endpoint_ = options.Endpoint();
  try {
    conn_ = std::make_unique<pqxx::connection>(ConnectionString(options));
  } catch (const std::exception& e) {
    conn_.reset();
    return Status::Error(endpoint_ + ": " + OneLine(e.what()));
  }
  return Status::Ok();
}

Status PostgresDriver::ExecuteOnce(std::string_view statement) {
  if (!conn_) return Status::Error(endpoint_ + ": not connected");
  try {
    pqxx::nontransaction tx(*conn_);
    tx.exec(std::string(statement));
  } catch (const std::exception& e) {
    if (!conn_->is_open()) conn_.reset();
    return Status::Error(endpoint_ + ": " + OneLine(e.what()));
  }
  return Status::Ok();
}

bool PostgresDriver::connected() const { return conn_ != nullptr; }

void PostgresDriver::Close() {
  if (!conn_) return;
  try {
    conn_->disconnect();
  } catch (...) {
  }
  conn_.reset();
}

}  // namespace stampede::drivers
