#include <trainbench/cli/console_progress.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include <trainbench/reporters/reporter.hpp>

namespace tb::cli {

namespace {
constexpr const char* kGreen = "32";
constexpr const char* kYellow = "33";
constexpr const char* kRed = "31";

const char* status_colour(ScenarioStatus s) {
  switch (s) {
    case ScenarioStatus::ok: return kGreen;
    case ScenarioStatus::skipped:
    case ScenarioStatus::interrupted: return kYellow;
    default: return kRed;  // failed, oom, diverged, crashed
  }
}
}  // namespace

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  char text[48];
  if (s < 60) std::snprintf(text, sizeof text, "%ld s", s);
  else if (s < 3600) std::snprintf(text, sizeof text, "%ld min %ld s", s / 60, s % 60);
  else std::snprintf(text, sizeof text, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
  return text;
}

double remaining_s(double elapsed_s, double done, double total) {
  if (done <= 0 || done >= total) return 0;
  return elapsed_s / done * (total - done);
}

ConsoleProgress::ConsoleProgress(std::ostream& out, bool colour) : out_(out), colour_(colour) {}

ConsoleProgress::ConsoleProgress(std::ostream& out) : ConsoleProgress(out, [&out] {
  const char* no_colour = std::getenv("NO_COLOR");
  return &out == &std::cout && isatty(STDOUT_FILENO) == 1 && (no_colour == nullptr || *no_colour == '\0');
}()) {}

double ConsoleProgress::elapsed_s() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

std::string ConsoleProgress::paint(std::string_view text, const char* ansi_colour) const {
  if (!colour_) return std::string(text);
  return "\033[" + std::string(ansi_colour) + "m" + std::string(text) + "\033[0m";
}

void ConsoleProgress::run_started(const RunPlan& plan) {
  start_ = Clock::now();
  interleave_ = plan.interleave;
  const std::string where = plan.out_dir.empty() ? "(not saved)" : plan.out_dir;
  if (plan.resume)
    out_ << "trainbench: resuming run " << plan.run_id << ": " << plan.to_measure << " of "
         << plan.in_matrix << " scenarios to measure, results in " << where << "\n";
  else
    out_ << "trainbench: matrix '" << plan.matrix << "' (" << plan.to_measure << " scenarios, "
         << plan.rounds << " rounds" << (plan.interleave ? ", interleaved" : "") << ") on "
         << plan.device << ", results in " << where << "\n";
  out_.flush();
}

void ConsoleProgress::round_finished(int round, int planned) {
  const double elapsed = elapsed_s();
  out_ << "round " << round + 1 << (round < planned ? "/" + std::to_string(planned) : " (extra)")
       << " done, " << static_cast<int>(elapsed) << " s";
  if (round + 1 < planned) out_ << ", ~" << format_duration(remaining_s(elapsed, round + 1, planned)) << " left";
  out_ << "\n" << std::flush;
}

void ConsoleProgress::scenario_finished(std::size_t done, std::size_t total, const ScenarioResult& r) {
  out_ << "[" << done << "/" << total << "] " << r.id << " ... "
       << paint(to_string(r.status), status_colour(r.status));
  if (r.status == ScenarioStatus::ok || r.status == ScenarioStatus::diverged) {
    char line[200];
    if (r.step_time_s.has_interval())
      std::snprintf(line, sizeof line, "%.2f ms/step [%.2f, %.2f]  %.1f samples/s  (%d steps, %zu segments, %s)",
                    r.step_time_s.median * 1e3, r.step_time_s.ci_low * 1e3, r.step_time_s.ci_high * 1e3,
                    r.samples_per_s, r.measured_steps, r.segments.size(), r.stop_reason.c_str());
    else
      std::snprintf(line, sizeof line, "%.2f ms/step (no interval)  %.1f samples/s  (%d steps, %zu segments)",
                    r.step_time_s.median * 1e3, r.samples_per_s, r.measured_steps, r.segments.size());
    out_ << "  " << line;
    if (r.contended()) out_ << "  " << paint("CONTENDED", kYellow);
  } else {
    out_ << ": " << r.message;
  }
  // Scenario after scenario (not interleaved), each finished one is a step towards the end.
  if (!interleave_ && done < total)
    out_ << "  [" << format_duration(elapsed_s()) << ", ~"
         << format_duration(remaining_s(elapsed_s(), static_cast<double>(done), static_cast<double>(total)))
         << " left]";
  if (r.status == ScenarioStatus::diverged) out_ << "\n      " << r.message;
  out_ << "\n" << std::flush;
}

void ConsoleProgress::run_finished(const RunResult& run, const std::string& results_path) {
  out_ << "\n";
  const std::string dir = results_path.empty() ? "" : std::filesystem::path(results_path).parent_path().string();
  make_reporter("console")->render(run, ReportContext{&out_, dir, dir});
  if (!results_path.empty()) out_ << "results: " << results_path << "\n";
  out_.flush();
}

void ConsoleProgress::message(std::string_view text) { out_ << text << std::flush; }

void ConsoleProgress::warning(std::string_view text) {
  out_ << paint("trainbench: warning: ", kYellow) << text << "\n" << std::flush;
}

void ConsoleProgress::error(std::string_view text) {
  out_ << paint("trainbench: error: ", kRed) << text << "\n" << std::flush;
}

}  // namespace tb::cli
