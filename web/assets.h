// The dashboard's static files, embedded into the binary at build time
// (web/dashboard/* and uPlot from npm; see web/CMakeLists.txt).
#ifndef STAMPEDE_WEB_ASSETS_H_
#define STAMPEDE_WEB_ASSETS_H_

#include <string_view>

namespace stampede::web {

struct Asset {
  std::string_view name;  // "index.html", "uPlot.iife.min.js", ...
  std::string_view content_type;
  std::string_view data;
};

// nullptr if there is no such file.
const Asset* FindAsset(std::string_view name);

}  // namespace stampede::web

#endif  // STAMPEDE_WEB_ASSETS_H_
