#include "common/byte_size.h"

#include <gtest/gtest.h>

namespace stampede {
namespace {

TEST(ByteSizeTest, ParsesUnits) {
  EXPECT_EQ(*ParseByteSize("4096"), 4096u);
  EXPECT_EQ(*ParseByteSize("64KiB"), 65536u);
  EXPECT_EQ(*ParseByteSize("256MB"), 256u << 20);
  EXPECT_EQ(*ParseByteSize("1G"), 1u << 30);
}

TEST(ByteSizeTest, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "MB", "-1MB", "10 MB", "10TB", "1.5G", "99999999999999999999G"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
  EXPECT_NE(ParseByteSize("lots").status().message().find("expected a size like 256MB"), std::string::npos);
}

}  // namespace
}  // namespace stampede
