// PostgreSQL-wire blocking connection on libpqxx (postgres, cockroachdb,
// yugabytedb), for one-off statements and health probes; workers use
// drivers/postgres_async_driver.h.
#ifndef STAMPEDE_DRIVERS_POSTGRES_DRIVER_H_
#define STAMPEDE_DRIVERS_POSTGRES_DRIVER_H_

#include <memory>
#include <pqxx/connection>
#include <string>

#include "drivers/driver.h"

namespace stampede::drivers {

class PostgresDriver : public Driver {
 public:
  PostgresDriver();
  ~PostgresDriver() override;

  Status Connect(const ConnectOptions& options) override;
  Status ExecuteOnce(std::string_view statement) override;
  bool connected() const override;
  void Close() override;

  // libpq connection string for options (password quoted, never logged).
  static std::string ConnectionString(const ConnectOptions& options);

 private:
  std::unique_ptr<pqxx::connection> conn_;
  std::string endpoint_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_POSTGRES_DRIVER_H_
