#include "cli/signals.h"

#include <signal.h>
#include <time.h>

namespace stampede::cli {
namespace {

sigset_t TerminationSet() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

void BlockTerminationSignals() {
  sigset_t set = TerminationSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

SignalWatcher::SignalWatcher(std::function<void(int)> handler) : handler_(std::move(handler)) {
  thread_ = std::thread([this] {
    sigset_t set = TerminationSet();
    timespec timeout{0, 200 * 1000 * 1000};
    while (!stop_.load()) {
      int sig = sigtimedwait(&set, nullptr, &timeout);
      if (sig > 0) {
        ++count_;
        handler_(sig);
      }
    }
  });
}

SignalWatcher::~SignalWatcher() {
  stop_ = true;
  thread_.join();
}

}  // namespace stampede::cli
