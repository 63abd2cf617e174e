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

std::string RenderReportHtml(const Json& view) {
  std::string html = AssetText("index.html");
  ReplaceOnce(&html, "<link rel=\"stylesheet\" href=\"uPlot.min.css\">",
              "<style>" + AssetText("uPlot.min.css") + "</style>");
  ReplaceOnce(&html, "<link rel=\"stylesheet\" href=\"dashboard.css\">",
              "<style>" + AssetText("dashboard.css") + "</style>");
  ReplaceOnce(&html, "<script src=\"uPlot.iife.min.js\"></script>",
              "<script>" + Inline(AssetText("uPlot.iife.min.js")) +
                  "</script>\n<script>window.STAMPEDE_RUN = " + Inline(view.dump()) + ";</script>");
  ReplaceOnce(&html, "<script src=\"dashboard.js\"></script>",
              "<script>" + Inline(AssetText("dashboard.js")) + "</script>");
  ReplaceOnce(&html, "<title>stampede</title>",
              "<title>stampede: " + view.value("plan_name", std::string()) + " " + view.value("run_id", std::string()) +
                  "</title>");
  return html;
}

}  // namespace stampede::report
