// One run's updates (progress, log lines, the result) for whoever follows
// it: the submitter, and any later Follow call (a submitter that lost the
// coordinator and came back, or someone watching a resumed run). It is the
// run's observer and passes everything on to the primary observer too.
// Thread-safe.
#ifndef STAMPEDE_COORDINATOR_RUN_FEED_H_
#define STAMPEDE_COORDINATOR_RUN_FEED_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "common/mutex.h"
#include "coordinator/run_controller.h"
#include "proto/stampede.pb.h"

namespace stampede::coordinator {

class RunFeed : public RunObserver {
 public:
  // primary: may be null; outlives this.
  explicit RunFeed(RunObserver* primary) : primary_(primary) {}

  void OnStarted(const std::string& run_id, const std::string& results_dir) override;
  void OnProgress(const v1::Progress& progress) override;
  void OnLog(const std::string& line) override;
  bool Cancelled() override;
  void End(const v1::RunResult& result);
  // A follower that may abort cancelled its call.
  void Abort() { aborted_ = true; }
  std::string run_id() const;
  std::string results_dir() const;
  bool ended() const;

  // Writes the updates (from the first one kept, or from now on), then the
  // result: true once the result was written; false if stop() turned true
  // or write() failed first.
  bool Follow(const std::function<bool(const v1::RunUpdate&)>& write, const std::function<bool()>& stop,
              bool from_start);

 private:
  void Push(v1::RunUpdate u);

  static constexpr size_t kKept = 4096;  // updates a slow follower may lag by
  RunObserver* const primary_;
  std::atomic<bool> aborted_{false};
  mutable Mutex mu_;
  std::condition_variable cv_;
  std::string run_id_ ABSL_GUARDED_BY(mu_);
  std::string results_dir_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::RunUpdate> updates_ ABSL_GUARDED_BY(mu_);
  uint64_t first_ ABSL_GUARDED_BY(mu_) = 0;  // number of updates_.front()
  std::optional<v1::RunResult> result_ ABSL_GUARDED_BY(mu_);
};

}  // namespace stampede::coordinator

#endif  // STAMPEDE_COORDINATOR_RUN_FEED_H_
