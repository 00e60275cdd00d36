#include <trainbench/cli/console_progress.hpp>

#include <unistd.h>

#include <algorithm>
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

std::string scenario_detail(const ScenarioResult& r) {
  const Distribution& t = r.step_time_s;
  char text[160];
  std::snprintf(text, sizeof text, "median %.2f ms/step, ", t.median * 1e3);
  std::string line = text;
  if (t.has_interval() && t.median > 0)
    std::snprintf(text, sizeof text, "95%% interval [%.2f, %.2f] ms (±%.1f%%, %s)", t.ci_low * 1e3, t.ci_high * 1e3,
                  (t.ci_high - t.ci_low) / 2 / t.median * 100, t.ci_method.c_str());
  else std::snprintf(text, sizeof text, "no 95%% interval");
  line += text;
  line += ", stop: " + (r.stop_reason.empty() ? std::string("-") : r.stop_reason);
  line += ", " + std::to_string(r.segments.size()) + (r.segments.size() == 1 ? " segment" : " segments");
  if (!r.segments.empty()) {
    line += ":";
    for (const Segment& s : r.segments) {
      std::snprintf(text, sizeof text, " %.2f", s.median_s * 1e3);
      line += text;
    }
    line += " ms";
  }
  return line;
}

ConsoleProgress::ConsoleProgress(std::ostream& out, bool colour, Detail detail)
    : out_(out), colour_(colour), detail_(detail) {}

ConsoleProgress::ConsoleProgress(std::ostream& out, Detail detail)
    : ConsoleProgress(
          out,
          [&out] {
            const char* no_colour = std::getenv("NO_COLOR");
            return &out == &std::cout && isatty(STDOUT_FILENO) == 1 && (no_colour == nullptr || *no_colour == '\0');
          }(),
          detail) {}

double ConsoleProgress::elapsed_s() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

std::string ConsoleProgress::paint(std::string_view text, const char* ansi_colour) const {
  if (!colour_) return std::string(text);
  return "\033[" + std::string(ansi_colour) + "m" + std::string(text) + "\033[0m";
}

void ConsoleProgress::run_started(const RunPlan& plan) {
  start_ = Clock::now();
  interleave_ = plan.interleave;
  const std::string where = plan.out_dir.empty() ? "(not saved)" : plan.out_dir;
  if (plan.resume)
    out_ << "trainbench: resuming run " << plan.run_id << ": " << plan.to_measure << " of " << plan.in_matrix
         << " scenarios to measure, results in " << where << "\n";
  else
    out_ << "trainbench: matrix '" << plan.matrix << "' (" << plan.to_measure << " scenarios, "
         << (plan.shard.empty() ? "" : "shard " + plan.shard + " of " + std::to_string(plan.in_matrix) + ", ")
         << plan.rounds << " rounds" << (plan.interleave ? ", interleaved" : "") << ") on " << plan.device
         << ", results in " << where << "\n";
  out_.flush();
}

void ConsoleProgress::round_finished(int round, int planned, const std::vector<std::string>& still_going) {
  const double elapsed = elapsed_s();
  out_ << "round " << round + 1 << (round < planned ? "/" + std::to_string(planned) : " (extra)") << " done, "
       << static_cast<int>(elapsed) << " s";
  if (round + 1 < planned) out_ << ", ~" << format_duration(remaining_s(elapsed, round + 1, planned)) << " left";
  out_ << "\n";
  if (detail_ == Detail::verbose) {
    // One line, not a screenful: a matrix of 50 scenarios would list all 50 every round.
    constexpr std::size_t kListed = 3;
    out_ << "      still going (" << still_going.size() << "):";
    for (std::size_t i = 0; i < std::min(kListed, still_going.size()); ++i) out_ << " " << still_going[i];
    if (still_going.size() > kListed) out_ << " +" << still_going.size() - kListed << " more";
    if (still_going.empty()) out_ << " none";
    out_ << "\n";
  }
  out_ << std::flush;
}

void ConsoleProgress::scenario_finished(std::size_t done, std::size_t total, const ScenarioResult& r) {
  out_ << "[" << done << "/" << total << "] " << r.id << " ... " << paint(to_string(r.status), status_colour(r.status));
  if (has_step_times(r.status)) {
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
  if (detail_ == Detail::verbose && has_step_times(r.status)) out_ << "\n      " << scenario_detail(r);
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
