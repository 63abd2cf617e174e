#include "drivers/driver_registry.h"

#include <algorithm>
#include <set>

#include "drivers/mysql_async_driver.h"
#include "drivers/mysql_driver.h"
#include "drivers/postgres_async_driver.h"
#include "drivers/postgres_driver.h"
#include "drivers/redis_async_driver.h"
#include "drivers/redis_cluster_async_driver.h"
#include "drivers/redis_cluster_driver.h"
#include "drivers/redis_driver.h"

namespace stampede::drivers {

namespace {

std::vector<DriverInfo>& Registry() {
  static std::vector<DriverInfo> kDrivers = {
      {"postgres",
       "PostgreSQL wire protocol (libpq; libpqxx for one-off statements)",
       Dialect::kPostgres,
       {"postgres", "cockroachdb", "yugabytedb"},
       [](const std::string&) { return std::unique_ptr<Driver>(new PostgresDriver()); },
       [](const std::string&, const boost::asio::any_io_executor& ex) {
         return std::unique_ptr<AsyncDriver>(new PostgresAsyncDriver(ex));
       },
       {"postgres"},
       true},
      {"mysql",
       "MySQL wire protocol (the MariaDB C API; mysql-connector-c++ for one-off statements)",
       Dialect::kMysql,
       {"mysql", "mariadb", "galera", "tidb"},
       [](const std::string&) { return std::unique_ptr<Driver>(new MysqlDriver()); },
       [](const std::string&, const boost::asio::any_io_executor& ex) {
         return std::unique_ptr<AsyncDriver>(new MysqlAsyncDriver(ex));
       },
       {},
       true},
      {"redis",
       "Redis protocol (hiredis)",
       Dialect::kRedis,
       {"redis", "redis-cluster"},
       [](const std::string& flavor) {
         return flavor == "redis-cluster" ? std::unique_ptr<Driver>(new RedisClusterDriver())
                                          : std::unique_ptr<Driver>(new RedisDriver());
       },
       [](const std::string& flavor, const boost::asio::any_io_executor& ex) {
         return flavor == "redis-cluster" ? std::unique_ptr<AsyncDriver>(new RedisClusterAsyncDriver(ex))
                                          : std::unique_ptr<AsyncDriver>(new RedisAsyncDriver(ex));
       },
       {"redis", "redis-cluster"}},
  };
  return kDrivers;
}

}  // namespace

const std::vector<DriverInfo>& Drivers() { return Registry(); }

ScopedTestDriver::ScopedTestDriver(DriverInfo info) : name_(info.name) { Registry().push_back(std::move(info)); }

ScopedTestDriver::~ScopedTestDriver() {
  std::vector<DriverInfo>& r = Registry();
  r.erase(std::remove_if(r.begin(), r.end(), [this](const DriverInfo& d) { return d.name == name_; }), r.end());
}

const DriverInfo* FindDriver(const std::string& name) {
  for (const DriverInfo& d : Drivers()) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::vector<std::string> DriverNames() {
  std::vector<std::string> names;
  for (const DriverInfo& d : Drivers()) names.push_back(d.name);
  return names;
}

Status CheckDriverRegistry() {
  std::set<std::string> seen;
  for (const DriverInfo& d : Drivers()) {
    if (!seen.insert(d.name).second) return Status::Error("duplicate driver '" + d.name + "'");
  }
  return Status::Ok();
}

}  // namespace stampede::drivers
