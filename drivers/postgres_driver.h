// PostgreSQL-wire driver on libpqxx (postgres, cockroachdb, yugabytedb).
#ifndef STAMPEDE_DRIVERS_POSTGRES_DRIVER_H_
#define STAMPEDE_DRIVERS_POSTGRES_DRIVER_H_

#include <memory>
#include <pqxx/connection>
#include <pqxx/nontransaction>
#include <string>
#include <vector>

#include "drivers/driver.h"

namespace stampede::drivers {

class PostgresDriver : public Driver, public TransactionalDriver {
 public:
  PostgresDriver();
  ~PostgresDriver() override;

  Status Connect(const ConnectOptions& options) override;
  Status Prepare(const std::vector<StatementSpec>& statements) override;
  OpResult Execute(const OpRequest& request, std::string* error) override;
  Status ExecuteOnce(std::string_view statement) override;
  OpResult Control(std::string_view statement, bool write, std::string* error) override;
  bool connected() const override;
  int socket_fd() const override;
  void Close() override;

  // libpq connection string for options (password quoted, never logged).
  static std::string ConnectionString(const ConnectOptions& options);

 private:
  std::unique_ptr<pqxx::connection> conn_;
  // Kept open across operations (each statement still commits on its own):
  // constructing one per operation costs more than the rest of the client.
  // Declared after conn_ so it is destroyed first.
  std::unique_ptr<pqxx::nontransaction> tx_;
  // Runs one prepared call; throws like libpqxx.
  pqxx::result Call(const OpRequest& req);
  std::string endpoint_;
  std::vector<std::string> names_;  // prepared statement names by id
  std::vector<bool> writes_;
  std::vector<bool> scalars_;
  std::vector<std::string> values_;  // parameter text, reused across ops
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_POSTGRES_DRIVER_H_
