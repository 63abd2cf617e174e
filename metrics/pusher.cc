#include "metrics/pusher.h"

#include <prometheus/gateway.h>

#include "common/log.h"

namespace stampede::metrics {

struct Pusher::GatewayHolder {
  std::unique_ptr<prometheus::Gateway> gateway;
};

StatusOr<std::unique_ptr<Pusher>> Pusher::Start(const std::string& url, const std::string& job,
                                                std::shared_ptr<prometheus::Registry> registry) {
  const std::string scheme = url.rfind("https://", 0) == 0 ? "https://" : "http://";
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
    return Status::Error("--pushgateway " + url + ": expected http://HOST:PORT");
  }
  std::string rest = url.substr(scheme.size());
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  const size_t colon = rest.rfind(':');
  if (colon == std::string::npos || colon + 1 == rest.size() || rest.find('/') != std::string::npos) {
    return Status::Error("--pushgateway " + url + ": expected http://HOST:PORT");
  }
  std::unique_ptr<Pusher> p(new Pusher());
  p->url_ = url;
  p->gateway_ = std::make_unique<GatewayHolder>();
  p->gateway_->gateway =
      std::make_unique<prometheus::Gateway>(scheme + rest.substr(0, colon), rest.substr(colon + 1), job);
  p->gateway_->gateway->RegisterCollectable(registry);
  p->thread_ = std::thread([raw = p.get()] { raw->Loop(); });
  return p;
}

int Pusher::PushNow() {
  const int code = gateway_->gateway->Push();
  if ((code < 200 || code >= 300) && !warned_) {
    warned_ = true;
    SLOG(kWarn) << "--pushgateway " << url_ << ": push failed (" << code << "); will keep trying";
  }
  return code;
}

void Pusher::Loop() {
  MutexLock lock(mu_);
  while (!stop_) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!stop_ && cv_.wait_until(lock.native(), until) != std::cv_status::timeout) {
    }
    lock.Unlock();
    PushNow();
    lock.Lock();
  }
}

Pusher::~Pusher() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace stampede::metrics
