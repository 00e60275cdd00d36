// Plain-text tables: every column padded to a common width, columns separated by a gap. The
// console report, `trainbench compare` and `trainbench history` all print through this writer,
// so their tables align the same way.
#pragma once
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace tb {

// Titles, alignment and rows of one table. A row shorter than the titles ends in a note (e.g.
// "not compared (old ok, new oom)"): its last cell runs on over the remaining columns and does
// not widen the column it starts in.
struct TextTable {
  std::vector<std::string> titles;
  std::vector<bool> right;  // numeric columns are right-aligned
  std::vector<std::vector<std::string>> rows;
  // Optional, per column: 0 fits the widest title or cell; N keeps the column N wide whatever
  // the values, so listings printed run after run keep their columns in place (a longer cell
  // pushes only the rest of its own row to the right).
  std::vector<std::size_t> fixed_width = {};
  bool empty() const { return rows.empty(); }
};

struct TextLayout {
  std::size_t gap = 2;        // spaces between two columns
  bool rule = false;          // a line of '-' under the titles, as wide as the table
  bool align_titles = false;  // titles of right-aligned columns right-aligned too (else left)
};

// Writes the titles and rows, one line each, without trailing spaces.
void write_text_table(std::ostream& os, const TextTable& table, const TextLayout& layout = {});

// Columns `s` takes on a terminal: UTF-8 code points, so '±' or '→' count as one.
std::size_t display_width(const std::string& s);

// `s` padded with spaces to `width` columns (left-aligned unless right is true); never truncated.
std::string pad(const std::string& s, std::size_t width, bool right = false);

}  // namespace tb
