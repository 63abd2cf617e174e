// Optional push of a registry to a Prometheus Pushgateway (prometheus-cpp
// push), for runs too short to be scraped: every 5 s while a run goes on and
// once at its end. Off unless --pushgateway is given.
#ifndef STAMPEDE_METRICS_PUSHER_H_
#define STAMPEDE_METRICS_PUSHER_H_

#include <prometheus/registry.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/mutex.h"
#include "common/status.h"

namespace stampede::metrics {

class Pusher {
 public:
  // url: http://HOST:PORT of the Pushgateway; job: its job label.
  static StatusOr<std::unique_ptr<Pusher>> Start(const std::string& url, const std::string& job,
                                                 std::shared_ptr<prometheus::Registry> registry);
  ~Pusher();  // pushes a last time

 private:
  Pusher() = default;
  void Loop();
  int PushNow();

  struct GatewayHolder;
  std::unique_ptr<GatewayHolder> gateway_;
  std::string url_;
  std::thread thread_;
  Mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool warned_ = false;
};

}  // namespace stampede::metrics

#endif  // STAMPEDE_METRICS_PUSHER_H_
