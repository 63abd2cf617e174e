// SIGINT/SIGTERM handling for the daemons and `run`: signals are blocked in
// every thread and delivered to one watcher thread, which calls a handler.
#ifndef STAMPEDE_CLI_SIGNALS_H_
#define STAMPEDE_CLI_SIGNALS_H_

#include <atomic>
#include <functional>
#include <thread>

namespace stampede::cli {

// Call first thing in main, before any thread starts.
void BlockTerminationSignals();

class SignalWatcher {
 public:
  // handler runs on the watcher thread, once per SIGINT/SIGTERM.
  explicit SignalWatcher(std::function<void(int)> handler);
  ~SignalWatcher();
  bool signalled() const { return count_.load() > 0; }

 private:
  std::function<void(int)> handler_;
  std::atomic<int> count_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace stampede::cli

#endif  // STAMPEDE_CLI_SIGNALS_H_
