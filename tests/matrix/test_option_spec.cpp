// Declared options: the generic validator's types, ranges, unknown keys with suggestions, rules,
// message excerpts and the `models` listing line.
#include <trainbench/matrix/option_spec.hpp>

#include <gtest/gtest.h>

#include <trainbench/support/error.hpp>

namespace tb {
namespace {

using nlohmann::json;

OptionSet mlp_like() {
  OptionSet set;
  set.options = {{"hidden", OptionType::integer, 1, 65536, {}, 1024, "width"},
                 {"depth", OptionType::integer, 1, 1024, {}, 2, "layers"},
                 {"rate", OptionType::number, 0, 1, {}, 0.5, ""},
                 {"fast", OptionType::boolean, {}, {}, {}, false, ""},
                 {"label", OptionType::string, {}, {}, {}, nullptr, ""},
                 {"root", OptionType::path, {}, {}, {}, nullptr, ""},
                 {"mode", OptionType::string_enum, {}, {}, {"train", "eval"}, "train", ""},
                 {"shape", OptionType::integer_list, 1, {}, {}, nullptr, ""},
                 {"budget", OptionType::byte_size, {}, {}, {}, nullptr, ""},
                 {"even", OptionType::custom, {}, {}, {}, nullptr, "", [](const json& v) -> std::string {
                    return v.is_number_integer() && v.get<int>() % 2 == 0 ? "" : "must be an even integer";
                  }}};
  set.rules = {{"depth", [](const json&, const json& r) -> std::string {
                  return r["depth"].get<int>() <= r["hidden"].get<int>() ? "" : "must not exceed hidden";
                }}};
  return set;
}

const OptionContext kContext{"m.json", "model_options", "model 'mlp'"};

// The InputError of validating `given`, as "field|message"; "ok" when it passes.
std::string outcome(const json& given, const OptionSet& set = mlp_like()) {
  try {
    validate_options(given, set, kContext);
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "m.json");
    return e.field() + "|" + std::string(e.what()).substr(std::string("m.json: ").size() + e.field().size() + 2);
  }
  return "ok";
}

TEST(OptionSpec, ValidValuesPass) {
  EXPECT_EQ(outcome(json::object()), "ok");
  EXPECT_EQ(outcome({{"hidden", 64},
                     {"depth", 3},
                     {"rate", 1},
                     {"fast", true},
                     {"label", ""},
                     {"root", "/tmp/x"},
                     {"mode", "eval"},
                     {"shape", {3, 32, 32}},
                     {"budget", "4GiB"},
                     {"even", 4}}),
            "ok");
  EXPECT_EQ(outcome({{"budget", 1024}}), "ok");
}

TEST(OptionSpec, TypesAndRangesNameTheField) {
  EXPECT_EQ(outcome({{"hidden", 0}}), "model_options.hidden|must be an integer in [1, 65536], got 0");
  EXPECT_EQ(outcome({{"hidden", 70000}}), "model_options.hidden|must be an integer in [1, 65536], got 70000");
  EXPECT_EQ(outcome({{"hidden", 64.5}}), "model_options.hidden|must be an integer in [1, 65536], got 64.5");
  EXPECT_EQ(outcome({{"hidden", "64"}}), "model_options.hidden|must be an integer in [1, 65536], got \"64\"");
  EXPECT_EQ(outcome({{"rate", 1.5}}), "model_options.rate|must be a number in [0, 1], got 1.5");
  EXPECT_EQ(outcome({{"fast", 1}}), "model_options.fast|must be true or false, got 1");
  EXPECT_EQ(outcome({{"label", 3}}), "model_options.label|must be a string, got 3");
  EXPECT_EQ(outcome({{"root", ""}}), "model_options.root|must be a path, got \"\"");
  EXPECT_EQ(outcome({{"mode", "test"}}), "model_options.mode|must be one of \"train\", \"eval\", got \"test\"");
  EXPECT_EQ(outcome({{"shape", json::array()}}),
            "model_options.shape|must be a non-empty list of integers each >= 1, got []");
  EXPECT_EQ(outcome({{"shape", {3, 0}}}), "model_options.shape[1]|must be an integer >= 1, got 0");
  EXPECT_EQ(outcome({{"budget", "lots"}}).substr(0, 40), "model_options.budget|must be a byte size");
  EXPECT_EQ(outcome({{"budget", 0}}).substr(0, 40), "model_options.budget|must be a byte size");
  EXPECT_EQ(outcome({{"even", 3}}), "model_options.even|must be an even integer");
}

TEST(OptionSpec, UnknownKeySuggestsTheClosestName) {
  EXPECT_EQ(outcome({{"hiden", 64}}),
            "model_options.hiden|unknown option of model 'mlp'; did you mean 'hidden'? (known: hidden, "
            "depth, rate, fast, label, root, mode, shape, budget, even)");
  EXPECT_EQ(outcome({{"Depth", 2}}).find("did you mean 'depth'?") != std::string::npos, true);
  const std::string far = outcome({{"learning_rate", 1}});
  EXPECT_EQ(far.find("did you mean"), std::string::npos) << far;
  EXPECT_EQ(outcome({{"x", 1}}, OptionSet{}), "model_options.x|unknown option of model 'mlp' (it takes no options)");
}

TEST(OptionSpec, RulesSeeDefaultsBaseAndGiven) {
  EXPECT_EQ(outcome({{"depth", 100}, {"hidden", 64}}), "model_options.depth|must not exceed hidden");
  EXPECT_EQ(outcome({{"depth", 100}}), "ok");  // hidden defaults to 1024
  EXPECT_THROW(validate_options({{"depth", 100}}, mlp_like(), kContext, {{"hidden", 50}}), InputError);
  const json resolved = resolve_options({{"depth", 3}}, mlp_like(), {{"hidden", 50}, {"extra", 1}});
  EXPECT_EQ(resolved["hidden"], 50);
  EXPECT_EQ(resolved["depth"], 3);
  EXPECT_EQ(resolved["mode"], "train");
  EXPECT_FALSE(resolved.contains("label"));  // no default
}

TEST(OptionSpec, NotAnObject) { EXPECT_EQ(outcome(json::array({1, 2})), "model_options|must be an object, got [1,2]"); }

TEST(OptionSpec, LongValuesAreQuotedAsAnExcerpt) {
  const std::string huge(5000, 'x');
  const std::string message = outcome({{"hidden", huge}});
  EXPECT_LT(message.size(), 120u) << message;
  EXPECT_NE(message.find("..."), std::string::npos);
  EXPECT_EQ(excerpt(json("short")), "\"short\"");
}

// An excerpt ends on a character boundary: "é" is two bytes, and half of one is not UTF-8.
TEST(OptionSpec, ExcerptsNeverCutACharacterInTwo) {
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += "\xc3\xa9";
  EXPECT_EQ(text_excerpt(accents, 5), "\xc3\xa9\xc3\xa9...");
  EXPECT_NO_THROW(json(text_excerpt(accents, 61)).dump());
  EXPECT_EQ(text_excerpt("abcdef", 3), "abc...");
}

TEST(OptionSpec, EditDistanceAndClosestName) {
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
  EXPECT_EQ(closest_name("max_batches", {"start", "max_batch", "multiple_of"}), "max_batch");
  EXPECT_EQ(closest_name("windows", {"enabled", "window"}), "window");
  EXPECT_EQ(closest_name("zzz", {"abc", "depth"}), "");
}

TEST(OptionSpec, DescribeForTheModelsCommand) {
  const auto set = mlp_like();
  EXPECT_EQ(describe_option(set.options[0]), "hidden (integer in [1, 65536], default 1024): width");
  EXPECT_EQ(describe_option(set.options[6]), "mode (one of \"train\", \"eval\", default \"train\")");
  EXPECT_EQ(describe_option(set.options[7]), "shape (list of integers each >= 1)");
}

}  // namespace
}  // namespace tb
