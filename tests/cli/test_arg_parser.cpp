// The one command-line parser: `--x v` and `--x=v`, repeated options, positionals, -h/--help,
// and the errors (unknown option, missing value, value given to a flag, extra positional).
#include <trainbench/cli/arg_parser.hpp>

#include <gtest/gtest.h>

#include <trainbench/support/error.hpp>

namespace {

using tb::cli::CommandSpec;
using tb::cli::parse_arguments;
using Args = std::vector<std::string>;

const CommandSpec kSpec{.name = "demo",
                        .summary = "a command for the tests",
                        .synopses = {"MATRIX [options]"},
                        .description = "Demonstrates the parser.\n",
                        .positionals = {{"MATRIX", "the matrix"}},
                        .options = {{"--out", "DIR", "where results go"},
                                    {"--set", "PATH=JSON", "an override", true},
                                    {"--isolate", "", "each scenario alone"},
                                    {"--no-isolate", "", "all together"}},
                        .epilogue = "exit codes: 0 ok\n"};

// The InputError's message for `args`, "" when they parse.
std::string error_of(const Args& args) {
  try {
    parse_arguments(kSpec, args);
  } catch (const tb::InputError& e) { return e.what(); }
  return "";
}

TEST(ArgParser, ValueAsNextArgumentOrAfterEquals) {
  EXPECT_EQ(parse_arguments(kSpec, {"--out", "a"}).value("--out"), "a");
  EXPECT_EQ(parse_arguments(kSpec, {"--out=a"}).value("--out"), "a");
  EXPECT_EQ(parse_arguments(kSpec, {"--out=a=b"}).value("--out"), "a=b");  // only the first '=' splits
  EXPECT_EQ(parse_arguments(kSpec, {"--out="}).value("--out"), "");
  EXPECT_FALSE(parse_arguments(kSpec, {}).value("--out").has_value());
}

TEST(ArgParser, RepeatedOptionsKeepEveryValueAndTheLastCounts) {
  const auto parsed = parse_arguments(kSpec, {"--set", "a=1", "--out", "x", "--set=b=2", "--out", "y"});
  EXPECT_EQ(parsed.values("--set"), (Args{"a=1", "b=2"}));
  EXPECT_EQ(parsed.value("--out"), "y");
}

TEST(ArgParser, TheLastOfOpposedFlagsWins) {
  EXPECT_EQ(parse_arguments(kSpec, {"--isolate", "--no-isolate"}).last_of({"--isolate", "--no-isolate"}),
            "--no-isolate");
  EXPECT_EQ(parse_arguments(kSpec, {"--no-isolate", "--isolate"}).last_of({"--isolate", "--no-isolate"}), "--isolate");
  EXPECT_EQ(parse_arguments(kSpec, {}).last_of({"--isolate", "--no-isolate"}), "");
}

TEST(ArgParser, PositionalsAnywhereUpToTheDeclaredNumber) {
  const auto parsed = parse_arguments(kSpec, {"--out", "x", "m.json", "--isolate"});
  EXPECT_EQ(parsed.positionals(), (Args{"m.json"}));
  EXPECT_TRUE(parsed.has("--isolate"));
  EXPECT_EQ(parse_arguments(kSpec, {"-"}).positionals(), (Args{"-"}));  // "-" is not an option
  EXPECT_EQ(error_of({"a.json", "b.json"}), "command line: b.json: unexpected argument (it takes MATRIX)");
}

TEST(ArgParser, ARepeatingLastPositionalTakesAnyNumber) {
  CommandSpec spec = kSpec;
  spec.positionals = {{"DIR", "a shard folder"}};
  spec.last_positional_repeats = true;
  const auto parsed = parse_arguments(spec, {"a", "--out", "x", "b", "c"});
  EXPECT_EQ(parsed.positionals(), (Args{"a", "b", "c"}));
  EXPECT_EQ(parsed.value("--out"), "x");
  spec.positionals.clear();  // nothing to repeat
  EXPECT_THROW(parse_arguments(spec, {"a"}), tb::InputError);
}

TEST(ArgParser, UnknownOptionsAreErrorsNamingThem) {
  EXPECT_EQ(error_of({"--bogus"}), "command line: --bogus: unknown option");
  EXPECT_EQ(error_of({"--bogus=1"}), "command line: --bogus: unknown option");
  EXPECT_EQ(error_of({"-x"}), "command line: -x: unknown option");
}

TEST(ArgParser, MissingValuesAndValuesForFlagsAreErrors) {
  EXPECT_EQ(error_of({"m.json", "--out"}), "command line: --out: needs a value (DIR)");
  EXPECT_EQ(error_of({"--isolate=yes"}), "command line: --isolate: takes no value");
  // A value may look like an option: it is taken as given.
  EXPECT_EQ(parse_arguments(kSpec, {"--out", "--isolate"}).value("--out"), "--isolate");
}

TEST(ArgParser, HelpStopsParsingWhereverItIs) {
  EXPECT_TRUE(parse_arguments(kSpec, {"--help"}).help());
  EXPECT_TRUE(parse_arguments(kSpec, {"m.json", "-h", "--bogus"}).help());
  EXPECT_FALSE(parse_arguments(kSpec, {"m.json"}).help());
}

TEST(ArgParser, TokensReproduceWhatWasGivenInCanonicalForm) {
  const auto parsed = parse_arguments(kSpec, {"--set=a=1", "m.json", "--isolate", "--out", "x"});
  EXPECT_EQ(parsed.tokens_without({}), (Args{"m.json", "--set", "a=1", "--isolate", "--out", "x"}));
  EXPECT_EQ(parsed.tokens_without({"--out"}), (Args{"m.json", "--set", "a=1", "--isolate"}));
  EXPECT_EQ(parse_arguments(kSpec, parsed.tokens_without({})).values("--set"), (Args{"a=1"}));
}

TEST(ArgParser, UsageListsEveryOptionFromTheTable) {
  const std::string usage = tb::cli::format_usage(kSpec);
  EXPECT_EQ(usage.rfind("usage: trainbench demo MATRIX [options]\n", 0), 0u) << usage;
  for (const char* text : {"Demonstrates the parser.", "MATRIX", "--out DIR", "where results go", "--set PATH=JSON",
                           "an override (repeatable)", "--isolate", "-h, --help", "exit codes: 0 ok"})
    EXPECT_NE(usage.find(text), std::string::npos) << text << "\n" << usage;
}

}  // namespace
