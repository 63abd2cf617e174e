#include "cli/tls_options.h"

#include <gtest/gtest.h>

namespace stampede::cli {
namespace {

TEST(TlsOptionsTest, LoopbackIsParsedNotMatchedByPrefix) {
  for (const char* a : {"127.0.0.1:7878", "127.1.2.3:1", "localhost:7878", "[::1]:7878", "::1",
                        "[::ffff:127.0.0.1]:7878", "127.0.0.1"}) {
    EXPECT_TRUE(IsLoopback(a)) << a;
  }
  for (const char* a : {"127.example.com:7878", "10.0.0.5:7878", "[::2]:7878", "0.0.0.0:7878", "[::]:7878",
                        "1270.0.0.1:1", "127.0.0.1.example.com:1", "[::1:7878", ""}) {
    EXPECT_FALSE(IsLoopback(a)) << a;
  }
}

}  // namespace
}  // namespace stampede::cli
