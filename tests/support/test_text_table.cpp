// The one plain-text table writer: widths, alignment, notes, fixed columns. The console,
// compare and history goldens check it on real tables; these pin the rules one by one.
#include <trainbench/support/text_table.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace tb {
namespace {

std::string write(const TextTable& t, const TextLayout& layout = {}) {
  std::ostringstream os;
  write_text_table(os, t, layout);
  return os.str();
}

TEST(TextTable, FitsColumnsAlignsNumbersAndTrimsLines) {
  const TextTable t{.titles = {"name", "ms"}, .right = {false, true}, .rows = {{"a", "1.5"}, {"longer", "12.25"}}};
  EXPECT_EQ(write(t),
            "name    ms\n"
            "a         1.5\n"
            "longer  12.25\n");
  EXPECT_EQ(write(t, {.gap = 1, .rule = true, .align_titles = true}),
            "name      ms\n"
            "------------\n"
            "a        1.5\n"
            "longer 12.25\n");
}

TEST(TextTable, CountsCodePointsNotBytes) {
  const TextTable t{.titles = {"loss", "x"}, .right = {false, false}, .rows = {{"2.3→0.5", "y"}}};
  EXPECT_EQ(write(t), "loss     x\n2.3→0.5  y\n");
  EXPECT_EQ(display_width("±0.05"), 5u);
  EXPECT_EQ(pad("→", 3, true), "  →");
}

TEST(TextTable, ShortRowEndsInANoteThatWidensNothing) {
  const TextTable t{
      .titles = {"id", "old", "new"}, .right = {false, true, true}, .rows = {{"a", "1", "2"}, {"b", "not compared"}}};
  EXPECT_EQ(write(t),
            "id  old  new\n"
            "a     1    2\n"
            "b   not compared\n");
}

TEST(TextTable, FixedWidthOverflowsOnlyItsRow) {
  const TextTable t{.titles = {"id", "ci", "n"},
                    .right = {false, false, false},
                    .rows = {{"a", "[1, 2]", "3"}, {"b", "[10, 20]", "4"}},
                    .fixed_width = {0, 7}};
  EXPECT_EQ(write(t),
            "id  ci       n\n"
            "a   [1, 2]   3\n"
            "b   [10, 20]  4\n");
}

}  // namespace
}  // namespace tb
