#include "agent/thread_cpu.h"

#include <gtest/gtest.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "common/clock.h"

namespace stampede::agent {
namespace {

int64_t ThreadCpuNowNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

// Spins until the calling thread has used ms more of CPU: its own clock,
// not the wall's, so a busy machine makes it take longer, not count less.
void Spin(int ms) {
  const int64_t until = ThreadCpuNowNs() + ms * kNsPerMs;
  volatile uint64_t x = 0;
  while (ThreadCpuNowNs() < until) x = x + 1;
}

// Two owners in one process, as two local agents are: each counts its own
// threads, a thread that has ended included, and together they stay
// within the process's CPU.
TEST(ThreadCpuTest, EachOwnerCountsItsOwnThreads) {
  ThreadCpu busy, idle;
  const int64_t process_before = ProcessCpuNs();
  std::thread a([&] {
    ThreadCpu::Scope counted(&busy);
    Spin(200);
  });
  std::thread b([&] {
    ThreadCpu::Scope counted(&idle);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  a.join();
  b.join();
  const int64_t process = ProcessCpuNs() - process_before;
  EXPECT_GT(busy.TotalNs(), 100 * kNsPerMs) << "the busy thread's CPU, kept after it ended";
  EXPECT_LT(idle.TotalNs(), 50 * kNsPerMs);
  EXPECT_LE(busy.TotalNs() + idle.TotalNs(), process + 10 * kNsPerMs);
}

TEST(ThreadCpuTest, ReadsALivingThreadAsItGoes) {
  ThreadCpu owner;
  std::atomic<bool> stop{false}, spun{false};
  std::thread t([&] {
    ThreadCpu::Scope counted(&owner);
    Spin(30);
    spun = true;
    while (!stop.load()) Spin(5);
  });
  while (!spun.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const int64_t mid = owner.TotalNs();
  stop = true;
  t.join();
  EXPECT_GT(mid, 20 * kNsPerMs);
  EXPECT_GE(owner.TotalNs(), mid);
  ThreadCpu::Scope none(nullptr);  // counts for no one, harmlessly
  EXPECT_FALSE(ProcessTag().empty());
}

}  // namespace
}  // namespace stampede::agent
