// The one list of drivers: {name, description, dialect, flavors, factory}.
#ifndef STAMPEDE_DRIVERS_DRIVER_REGISTRY_H_
#define STAMPEDE_DRIVERS_DRIVER_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "drivers/async_driver.h"
#include "drivers/driver.h"

namespace stampede::drivers {

// The statement dialect a workload writes for.
enum class Dialect { kPostgres, kMysql, kRedis };

struct DriverInfo {
  std::string name;
  std::string description;
  Dialect dialect;
  std::vector<std::string> flavors;  // first is the default
  std::function<std::unique_ptr<Driver>(const std::string& flavor)> factory;
  // The asynchronous form, on an event loop (agent/async_runner), for the
  // flavors listed in async_flavors; none if empty.
  std::vector<std::string> async_flavors;
  std::function<std::unique_ptr<AsyncDriver>(const std::string& flavor, const boost::asio::any_io_executor&)>
      async_factory;

  bool HasAsync(const std::string& flavor) const;
};

const std::vector<DriverInfo>& Drivers();
const DriverInfo* FindDriver(const std::string& name);
std::vector<std::string> DriverNames();

// Fails if two entries share a name (called at start-up and in tests).
Status CheckDriverRegistry();

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_DRIVER_REGISTRY_H_
