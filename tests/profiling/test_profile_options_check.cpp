// The "profile" block: impossible combinations are input errors naming the field; options the
// machine cannot honour come back as a skip reason.
#include <trainbench/profiling/profile_options_check.hpp>

#include <gtest/gtest.h>

#include <trainbench/support/error.hpp>

namespace {

using tb::profiling::check_profile_options;
using tb::profiling::validate_profile_options;

TEST(ProfileOptionsCheck, DisabledIsAlwaysFine) {
  tb::ProfileOptions o;
  o.cupti = o.kineto = true;
  EXPECT_EQ(check_profile_options(o, false), "");
}

TEST(ProfileOptionsCheck, CuptiAndKinetoTogetherIsAnError) {
  tb::ProfileOptions o;
  o.enabled = o.cupti = o.kineto = true;
  try {
    check_profile_options(o, true, true, "matrix.json");
    FAIL() << "expected InputError";
  } catch (const tb::InputError& e) {
    EXPECT_EQ(e.file(), "matrix.json");
    EXPECT_EQ(e.field(), "profile.cupti");
    EXPECT_NE(std::string(e.what()).find("one user at a time"), std::string::npos);
  }
}

TEST(ProfileOptionsCheck, WindowMustBePositive) {
  tb::ProfileOptions o;
  o.enabled = true;
  o.window = 0;
  EXPECT_THROW(check_profile_options(o, true), tb::InputError);
}

TEST(ProfileOptionsCheck, CuptiWithoutGpuOrBuildIsASkipReason) {
  tb::ProfileOptions o;
  o.enabled = o.cupti = true;
  EXPECT_NE(check_profile_options(o, false).find("needs a CUDA GPU"), std::string::npos);
  EXPECT_NE(check_profile_options(o, true, false).find("no CUPTI collector"), std::string::npos);
  EXPECT_EQ(check_profile_options(o, true, true), "");
  o.cupti = false;
  o.kineto = true;
  EXPECT_EQ(check_profile_options(o, false), "");  // Kineto works on the CPU too
}

TEST(ProfileOptionsCheck, MatrixValidationRefusesCuptiOnCpuAndConflictsEvenWhenDisabled) {
  tb::ProfileOptions o;
  o.cupti = true;
  try {
    validate_profile_options(o, tb::DeviceKind::cpu, "m.json");
    FAIL() << "expected InputError";
  } catch (const tb::InputError& e) {
    EXPECT_EQ(e.field(), "profile.cupti");
    EXPECT_NE(std::string(e.what()).find("needs a CUDA device"), std::string::npos);
  }
  EXPECT_NO_THROW(validate_profile_options(o, tb::DeviceKind::cuda, "m.json"));
  EXPECT_NO_THROW(validate_profile_options(o, std::nullopt, "m.json"));  // device unknown: not checked
  o.kineto = true;
  EXPECT_THROW(validate_profile_options(o, tb::DeviceKind::cuda, "m.json"), tb::InputError);
}

}  // namespace
