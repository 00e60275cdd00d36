#include <trainbench/support/text_table.hpp>

#include <algorithm>

namespace tb {

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // count every byte but continuation bytes
  return n;
}

std::string pad(const std::string& s, std::size_t width, bool right) {
  const std::size_t len = display_width(s);
  if (len >= width) return s;
  const std::string fill(width - len, ' ');
  return right ? fill + s : s + fill;
}

namespace {

using Row = std::vector<std::string>;

// A row shorter than the titles ends in a note that runs on over the remaining columns.
bool is_note(const Row& cells, std::size_t c, std::size_t columns) {
  return cells.size() < columns && c + 1 == cells.size();
}

std::vector<std::size_t> column_widths(const TextTable& t) {
  const std::size_t columns = t.titles.size();
  std::vector<std::size_t> width(columns);
  for (std::size_t c = 0; c < columns; ++c) {
    if (c < t.fixed_width.size() && t.fixed_width[c] > 0) {
      width[c] = t.fixed_width[c];
      continue;
    }
    width[c] = display_width(t.titles[c]);
    for (const Row& r : t.rows)
      if (c < r.size() && !is_note(r, c, columns)) width[c] = std::max(width[c], display_width(r[c]));
  }
  return width;
}

void write_line(std::ostream& os, const Row& cells, const std::vector<std::size_t>& width,
                const std::vector<bool>& right, std::size_t gap) {
  std::string text;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (c) text.append(gap, ' ');
    text += is_note(cells, c, width.size()) ? cells[c] : pad(cells[c], width[c], right[c]);
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  os << text << '\n';
}

}  // namespace

void write_text_table(std::ostream& os, const TextTable& t, const TextLayout& layout) {
  const std::vector<std::size_t> width = column_widths(t);
  const std::vector<bool> title_right = layout.align_titles ? t.right : std::vector<bool>(t.titles.size(), false);
  write_line(os, t.titles, width, title_right, layout.gap);
  if (layout.rule) {
    std::size_t total = layout.gap * (width.size() - 1);
    for (auto w : width) total += w;
    os << std::string(total, '-') << '\n';
  }
  for (const Row& r : t.rows) write_line(os, r, width, t.right, layout.gap);
}

}  // namespace tb
