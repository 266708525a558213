// parse_scenario_text (core/scenario/json_text.cpp): every error names the path of the value the
// parser stopped at (issue 18).
#include "helpers.hpp"

#include "../../core/scenario/json_text.hpp"

namespace {

using attnplay::InputError;
using attnplay::parse_scenario_text;

// {field, message} of the parser's error on `text` ({"?", "?"} when it parses).
std::pair<std::string, std::string> parse_failure(const std::string& text) {
  try {
    parse_scenario_text(text);
  } catch (const InputError& e) {
    return {e.field, e.what()};
  }
  return {"?", "?"};
}

const std::string kQkv = R"("k": [[[[1]]]], "v": [[[[1]]]])";

}  // namespace

TEST_CASE("json text: a number beyond float64 names its entry") {
  const auto [field, message] = parse_failure(R"({"algorithm": "full", "q": [[[[1, 2], [3, 1e999]]]], )" + kQkv + "}");
  CHECK(field == "q[0][0][1][1]");
  CHECK(message.rfind("q[0][0][1][1]: 1e999 is outside float64", 0) == 0);
  // the issue's example, and a negative one inside an object inside an array
  CHECK(parse_failure(R"({"q": [[[[1e999]]]]})").second.rfind("q[0][0][0][0]: 1e999 is outside float64", 0) == 0);
  CHECK(parse_failure(R"({"mask": {"fill": -1e400}})").first == "mask.fill");
  // an underflow is zero, as in PyTorch (torch.tensor(1e-400) == 0)
  CHECK(parse_scenario_text(R"({"q": [1e-400]})")["q"][0].get<double>() == 0.0);
}

TEST_CASE("json text: NaN and Infinity literals name their entry") {
  CHECK(parse_failure(R"({"algorithm": "full", "q": NaN})").second.rfind("q: NaN is not a JSON number", 0) == 0);
  CHECK(parse_failure(R"({"q": [[[[0, Infinity]]]]})").first == "q[0][0][0][1]");
  CHECK(parse_failure(R"({"q": [[[[-Infinity]]]]})").second.rfind("q[0][0][0][0]: -Infinity is not", 0) == 0);
  CHECK(parse_failure(R"([1, 2, nan])").first == "[2]");
  // nlohmann's last token after a one-character token still holds what came before ("0, I")
  CHECK(parse_failure(R"({"v": [[[[1, Infinity]]]]})").second.rfind("v[0][0][0][1]: Infinity is not a JSON number", 0) == 0);
  CHECK(parse_failure(R"({"mask": {"fill": -Infinity}})").first == "mask.fill");
}

TEST_CASE("json text: syntax errors name the array or object left open, the text as a whole at depth 0") {
  const auto [field, message] = parse_failure(R"({"algorithm": "full", "q": [[[[1)");
  CHECK(field == "q[0][0][0]");
  CHECK(message.rfind("q[0][0][0]: invalid JSON at byte 32 (the end of the text): syntax error", 0) == 0);
  // the byte shown is where the offending token starts, whatever nlohmann's last token holds
  CHECK(parse_failure(R"({"q": [[[[0, nul]]]]})").second.rfind("q[0][0][0]: invalid JSON at byte 13: syntax error", 0) == 0);
  CHECK(parse_failure(R"({"q": [1 : 2]})").second.rfind("q: invalid JSON at byte 9: syntax error", 0) == 0);
  CHECK(parse_failure(R"({"mask": {"kind": "local" "window": 2}})").second.rfind("mask: invalid JSON at byte 26: syntax error", 0) == 0);
  CHECK(parse_failure(R"({"algorithm": "full",)").first.empty());
  CHECK(parse_failure(R"({"algorithm": "full",)").second.rfind("scenario: invalid JSON at byte", 0) == 0);
  CHECK(parse_failure("nope").first.empty());
  CHECK(parse_failure("").first.empty());
  CHECK(parse_failure(R"({"algorithm": "full"} x)").first.empty());
  CHECK(parse_failure(R"({"mask": {"kind": "local" "window": 2}})").first == "mask");
}

TEST_CASE("json text: broken UTF-8 names the string's value or its object, and the message stays UTF-8") {
  const auto [field, message] = parse_failure("{\"algorithm\": \"fu\xff\"}");
  CHECK(field == "algorithm");
  CHECK(message.find("ill-formed UTF-8") != std::string::npos);
  CHECK(message.find('\xff') == std::string::npos);
  CHECK_NOTHROW(attnplay::json(message).dump());  // the WASM boundary writes it into JSON
  const auto in_key = parse_failure("{\"mask\": {\"ki\xc3\x28\": 1}}");
  CHECK(in_key.first == "mask");
  CHECK(in_key.second.find("(in a key)") != std::string::npos);
}

TEST_CASE("json text: nesting deeper than the limit is refused where it passes the limit") {
  const std::size_t depth = attnplay::kMaxJsonDepth;
  const std::string ok = std::string(depth, '[') + std::string(depth, ']');
  CHECK_NOTHROW(parse_scenario_text(ok));
  const std::string deep = "{\"q\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  const auto [field, message] = parse_failure(deep);
  std::string expected = "q";
  for (std::size_t i = 1; i < depth; ++i) expected += "[0]";
  CHECK(field == expected);
  CHECK(message.find("nested deeper than 64") != std::string::npos);
}

TEST_CASE("json text: more than the text limit is refused before parsing") {
  const std::string huge(attnplay::kMaxScenarioBytes + 1, ' ');
  const auto [field, message] = parse_failure(huge);
  CHECK(field.empty());
  CHECK(message == "scenario: the JSON text is 268435457 bytes, more than the limit 268435456 (256 MiB)");
}
