// Precompiled once per build and used by every torch-free unit of trainbench and its tests
// (cmake/precompiled_headers.cmake). nlohmann/json alone is about 1.5 s of parsing per unit, and
// nearly every unit includes it. Only stable, third-party and standard headers belong here:
// a trainbench header in this list would rebuild everything each time it changed.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
