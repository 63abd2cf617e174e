#include "drivers/postgres_driver.h"

#include <charconv>
#include <pqxx/pqxx>

#include "drivers/postgres_errors.h"
#include "drivers/statement_template.h"

namespace stampede::drivers {
namespace {

// libpq messages span lines ("could not connect...\n\tIs the server..."):
// the user gets one line.
std::string OneLine(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\n' || c == '\t' || c == '\r') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string Quote(const std::string& v) {
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// libpqxx 6 does not always fill sqlstate(); its exception classes say it.
std::string SqlState(const pqxx::sql_error& e) {
  if (!e.sqlstate().empty()) return e.sqlstate();
  if (dynamic_cast<const pqxx::serialization_failure*>(&e)) return "40001";
  if (dynamic_cast<const pqxx::deadlock_detected*>(&e)) return "40P01";
  if (dynamic_cast<const pqxx::statement_completion_unknown*>(&e)) return "40003";
  if (dynamic_cast<const pqxx::transaction_rollback*>(&e)) return "40000";
  if (dynamic_cast<const pqxx::syntax_error*>(&e)) return "42601";
  if (dynamic_cast<const pqxx::undefined_table*>(&e)) return "42P01";
  if (dynamic_cast<const pqxx::unique_violation*>(&e)) return "23505";
  if (dynamic_cast<const pqxx::insufficient_privilege*>(&e)) return "42501";
  return "";
}

}  // namespace

PostgresDriver::PostgresDriver() : values_(kMaxParams) {
  for (auto& v : values_) v.reserve(64);
}

PostgresDriver::~PostgresDriver() { Close(); }

std::string PostgresDriver::ConnectionString(const ConnectOptions& o) {
  std::string s = "host=" + Quote(o.host) + " port=" + std::to_string(o.port);
  if (!o.user.empty()) s += " user=" + Quote(o.user);
  if (!o.password.empty()) s += " password=" + Quote(o.password);
  if (!o.database.empty()) s += " dbname=" + Quote(o.database);
  int timeout_s = (o.connect_timeout_ms + 999) / 1000;
  s += " connect_timeout=" + std::to_string(timeout_s < 2 ? 2 : timeout_s);
  s += " application_name=stampede";
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

Status PostgresDriver::Prepare(const std::vector<StatementSpec>& statements) {
  if (!conn_) return Status::Error(endpoint_ + ": not connected");
  tx_.reset();
  names_.clear();
  writes_.clear();
  scalars_.clear();
  try {
    for (size_t i = 0; i < statements.size(); ++i) {
      std::string name = "s" + std::to_string(i);
      conn_->prepare(name, statements[i].text);
      names_.push_back(name);
      writes_.push_back(statements[i].write);
      scalars_.push_back(statements[i].scalar);
    }
    // libpqxx prepares lazily: send every statement to the server now, so
    // a syntax error shows before the run, not as a stream of fatal ops.
    for (const std::string& name : names_) conn_->prepare_now(name);
  } catch (const pqxx::sql_error& e) {
    return Status::Error(endpoint_ + ": preparing statement: " + OneLine(e.what()));
  } catch (const std::exception& e) {
    return Status::Error(endpoint_ + ": " + OneLine(e.what()));
  }
  return Status::Ok();
}

OpResult PostgresDriver::Execute(const OpRequest& req, std::string* error) {
  OpResult result;
  if (!conn_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    return result;
  }
  try {
    pqxx::result r = Call(req);
    result.rows = r.columns() > 0 ? static_cast<int64_t>(r.size()) : r.affected_rows();
    if (scalars_[req.stmt] && !r.empty() && r.columns() > 0) r[0][0].to(result.value);
  } catch (const pqxx::broken_connection& e) {
    result.outcome = ClassifyPostgresConnectionLoss(writes_[req.stmt]);
    *error = endpoint_ + ": connection lost: " + OneLine(e.what());
    tx_.reset();
    conn_.reset();
  } catch (const pqxx::in_doubt_error& e) {
    tx_.reset();
    result.outcome = Outcome::kAmbiguous;
    *error = endpoint_ + ": " + OneLine(e.what());
  } catch (const pqxx::sql_error& e) {
    const std::string state = SqlState(e);
    result.outcome = ClassifyPostgresError(state, e.what());
    *error = endpoint_ + ": " + state + " " + OneLine(e.what());
    tx_.reset();
    if (!conn_->is_open()) conn_.reset();
  } catch (const std::exception& e) {
    // Not every server error arrives as pqxx::sql_error: let the message say.
    result.outcome = ClassifyPostgresError("", e.what());
    *error = endpoint_ + ": " + OneLine(e.what());
    tx_.reset();
    if (!conn_->is_open()) conn_.reset();
  }
  return result;
}

pqxx::result PostgresDriver::Call(const OpRequest& req) {
  for (int i = 0; i < req.nparams; ++i) {
    values_[i].clear();
    AppendParam(req.params[i], &values_[i]);
  }
  if (!tx_) tx_ = std::make_unique<pqxx::nontransaction>(*conn_);
  return tx_->exec_prepared(names_[req.stmt],
                            pqxx::prepare::make_dynamic_params(values_.begin(), values_.begin() + req.nparams));
}

OpResult PostgresDriver::Control(std::string_view statement, bool write, std::string* error) {
  OpResult result;
  if (!conn_) {
    result.outcome = Outcome::kUnavailable;
    *error = endpoint_ + ": not connected";
    return result;
  }
  // Through the long-lived nontransaction, like the prepared statements:
  // BEGIN here opens the server-side transaction they then run in.
  try {
    if (!tx_) tx_ = std::make_unique<pqxx::nontransaction>(*conn_);
    tx_->exec(std::string(statement));
  } catch (const pqxx::broken_connection& e) {
    result.outcome = ClassifyPostgresConnectionLoss(write);
    *error = endpoint_ + ": connection lost during " + std::string(statement) + ": " + OneLine(e.what());
    tx_.reset();
    conn_.reset();
  } catch (const pqxx::sql_error& e) {
    const std::string state = SqlState(e);
    result.outcome = ClassifyPostgresError(state, e.what());
    *error = endpoint_ + ": " + state + " " + OneLine(e.what());
    tx_.reset();
    if (!conn_->is_open()) conn_.reset();
  } catch (const std::exception& e) {
    result.outcome = ClassifyPostgresError("", e.what());
    *error = endpoint_ + ": " + OneLine(e.what());
    tx_.reset();
    if (!conn_->is_open()) conn_.reset();
  }
  return result;
}

Status PostgresDriver::ExecuteOnce(std::string_view statement) {
  if (!conn_) return Status::Error(endpoint_ + ": not connected");
  tx_.reset();
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

int PostgresDriver::socket_fd() const { return conn_ ? conn_->sock() : -1; }

void PostgresDriver::Close() {
  tx_.reset();
  if (!conn_) return;
  try {
    conn_->disconnect();
  } catch (...) {
  }
  conn_.reset();
}

}  // namespace stampede::drivers
