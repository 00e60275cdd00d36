// Durable, checked writes for every artefact trainbench leaves behind (results.json, reports,
// traces, noise floors). A reader never sees a half-written file: the bytes go to a unique
// temporary file beside the target, every write, the fsync and the close are checked, and only
// then is the temporary renamed over the target. On any failure the temporary is removed, the
// previous file is left untouched and OutputError says which artefact and why.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

namespace tb {

// Replaces `path` with `contents` (creating its folder when missing). Throws OutputError.
void write_file_durably(const std::filesystem::path& path, std::string_view contents);

// Creates `dir` when missing and proves it writable by creating and removing a probe file, so
// an unusable --out fails before hours of work instead of after. Throws OutputError naming it.
void ensure_writable_dir(const std::filesystem::path& dir);

// "<name>.tmp-<pid>-<random>" beside `target`: unique across processes and calls, so two runs
// writing the same artefact never share a temporary file.
std::filesystem::path temporary_path_for(const std::filesystem::path& target);

}  // namespace tb
