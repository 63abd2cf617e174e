// The one list of drivers: {name, description, dialect, flavors, factories}.
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
  // A blocking connection, for one-off statements (setup, cleanup) and
  // health probes.
  std::function<std::unique_ptr<Driver>(const std::string& flavor)> factory;
  // A worker's connection, on an event loop (agent/phase_runner).
  std::function<std::unique_ptr<AsyncDriver>(const std::string& flavor, const boost::asio::any_io_executor&)>
      async_factory;
  // The flavors whose asynchronous driver pipelines (AsyncDriver::Append).
  std::vector<std::string> pipelined_flavors;
  // Its asynchronous driver waits on C-library sockets through the loop's
  // ReadinessSet: the runner's loops then block in the set (Run), not in
  // Asio's reactor.
  bool on_readiness_set = false;
};

const std::vector<DriverInfo>& Drivers();
const DriverInfo* FindDriver(const std::string& name);
std::vector<std::string> DriverNames();

// Fails if two entries share a name (called at start-up and in tests).
Status CheckDriverRegistry();

// Tests only: adds a driver (drivers/fake_async_driver.h's) for the life
// of the object. Not thread-safe: construct and destroy it while no plan
// is read and no runner runs.
class ScopedTestDriver {
 public:
  explicit ScopedTestDriver(DriverInfo info);
  ~ScopedTestDriver();
  ScopedTestDriver(const ScopedTestDriver&) = delete;
  ScopedTestDriver& operator=(const ScopedTestDriver&) = delete;

 private:
  std::string name_;
};

}  // namespace stampede::drivers

#endif  // STAMPEDE_DRIVERS_DRIVER_REGISTRY_H_
