// A mutex the compiler can check. Clang's thread-safety analysis
// (-Wthread-safety, on in every clang build: the sanitizer stage's build is
// one) proves that state marked ABSL_GUARDED_BY(mu_) is only touched with
// mu_ held and that functions marked ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) are
// only called so. The annotations are Abseil's (header-only, installed with
// gRPC); GCC ignores them.
//
// libstdc++'s std::mutex carries no annotations, so shared state is guarded
// by Mutex, held with MutexLock; a condition variable waits on
// MutexLock::native(), in a loop whose condition the analysis can see:
//
//   MutexLock lock(mu_);
//   while (!done_) cv_.wait(lock.native());
#ifndef STAMPEDE_COMMON_MUTEX_H_
#define STAMPEDE_COMMON_MUTEX_H_

#include <absl/base/thread_annotations.h>

#include <mutex>

namespace stampede {

class ABSL_LOCKABLE Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

// Holds a Mutex for its scope. Unlock() and Lock() let a scope let go for
// a while (to call out, to join a thread) and take it back.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : lock_(mu.native()) {}
  ~MutexLock() ABSL_UNLOCK_FUNCTION() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() ABSL_UNLOCK_FUNCTION() { lock_.unlock(); }
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { lock_.lock(); }
  // For std::condition_variable's wait, wait_for and wait_until.
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace stampede

#endif  // STAMPEDE_COMMON_MUTEX_H_
