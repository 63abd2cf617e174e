#include "report/report_html.h"

#include "web/assets.h"

namespace stampede::report {
namespace {

std::string AssetText(const char* name) {
  const web::Asset* a = web::FindAsset(name);
  return a ? std::string(a->data) : std::string();
}

// Text placed inside <script> or <style> must not close the element.
std::string Inline(std::string text) {
  for (size_t p = 0; (p = text.find("</", p)) != std::string::npos; p += 3) text.replace(p, 2, "<\\/");
  return text;
}

void ReplaceOnce(std::string* s, const std::string& from, const std::string& to) {
  const size_t p = s->find(from);
  if (p != std::string::npos) s->replace(p, from.size(), to);
}

}  // namespace

std::string InlinePage(const std::string& page, const std::string& data_name, const Json& data,
                       const std::string& title) {
  std::string html = AssetText(page.c_str());
  ReplaceOnce(&html, "<link rel=\"stylesheet\" href=\"uPlot.min.css\">",
              "<style>" + AssetText("uPlot.min.css") + "</style>");
  ReplaceOnce(&html, "<link rel=\"stylesheet\" href=\"dashboard.css\">",
              "<style>" + AssetText("dashboard.css") + "</style>");
  ReplaceOnce(&html, "<script src=\"uPlot.iife.min.js\"></script>",
              "<script>" + Inline(AssetText("uPlot.iife.min.js")) + "</script>\n<script>window." + data_name + " = " +
                  Inline(data.dump()) + ";</script>");
  const std::string script = page.substr(0, page.rfind('.')) + ".js";
  const std::string name = script == "index.js" ? "dashboard.js" : script;
  ReplaceOnce(&html, "<script src=\"" + name + "\"></script>",
              "<script>" + Inline(AssetText(name.c_str())) + "</script>");
  const size_t open = html.find("<title>"), close = html.find("</title>");
  if (open != std::string::npos && close != std::string::npos) html.replace(open + 7, close - open - 7, title);
  return html;
}

std::string RenderReportHtml(const Json& view) {
  return InlinePage("index.html", "STAMPEDE_RUN", view,
                    "stampede: " + view.value("plan_name", std::string()) + " " + view.value("run_id", std::string()));
}

}  // namespace stampede::report
