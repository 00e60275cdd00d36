// Every combination of one value from each of several lists, as indices: the matrix's scenarios.
#pragma once
#include <cstddef>
#include <vector>

namespace tb {

// Calls visit(indices) for each combination of indices into lists of the given sizes, the last
// index varying fastest (an odometer), so the order is stable and follows the lists' order. An
// empty list makes no combination.
template <typename Visit>
void for_each_combination(const std::vector<std::size_t>& sizes, Visit visit) {
  for (const std::size_t n : sizes)
    if (n == 0) return;
  std::vector<std::size_t> indices(sizes.size(), 0);
  while (true) {
    visit(static_cast<const std::vector<std::size_t>&>(indices));
    std::size_t k = sizes.size();
    while (k > 0 && ++indices[k - 1] == sizes[k - 1]) indices[--k] = 0;
    if (k == 0) return;
  }
}

}  // namespace tb
