// JSON text -> json, with errors that name the path of the value the parser stopped at (issue 18):
// `q[0][0][0][0]: 1e999 is outside float64`. nlohmann's SAX interface: a handler that builds the
// value through nlohmann's own DOM builder and keeps the path of every open array and object.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "json_text.hpp"
#include "scenario.hpp"

namespace attnplay {

namespace {

using DomBuilder = nlohmann::detail::json_sax_dom_parser<json>;

// Non-ASCII and control bytes as \xNN: an error message must stay valid UTF-8 (it is written
// into JSON by the WASM boundary) even when it quotes broken text.
std::string printable(const std::string& s) {
  std::string out;
  for (const unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

class PathHandler {
 public:
  PathHandler(json& root, const std::string& text) : dom_(root, true), text_(text) {}

  bool null() { return value(dom_.null()); }
  bool boolean(bool b) { return value(dom_.boolean(b)); }
  bool number_integer(json::number_integer_t v) { return value(dom_.number_integer(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return value(dom_.number_unsigned(v)); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return value(dom_.number_float(v, s)); }
  bool string(json::string_t& s) { return value(dom_.string(s)); }
  bool binary(json::binary_t& b) { return value(dom_.binary(b)); }

  bool start_object(std::size_t n) {
    open(false);
    return dom_.start_object(n);
  }
  bool key(json::string_t& k) {
    open_.back().key = k;
    open_.back().pending_key = true;
    return dom_.key(k);
  }
  bool end_object() {
    open_.pop_back();
    return value(dom_.end_object());
  }
  bool start_array(std::size_t n) {
    open(true);
    return dom_.start_array(n);
  }
  bool end_array() {
    open_.pop_back();
    return value(dom_.end_array());
  }

  // nlohmann's lexer has read up to `position` (one past the byte it stopped at; past the end at the
  // end of the text). `last_token` is not the offending token alone: after a one-character token
  // or an invalid literal it still holds what came before ("0, I"), so the token's start is found
  // in the text instead.
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    std::string what = ex.what();
    if (ex.id == 406)  // a number the lexer read as +-inf (number tokens are the whole last_token)
      throw InputError(element_path(), printable(last_token) + " is outside float64 (numbers must be finite, at most about 1.8e308 in magnitude)");
    const auto syntax = what.find("syntax error");
    if (syntax != std::string::npos) what = what.substr(syntax);
    const auto last_read = what.find("; last read:");
    if (last_read != std::string::npos) what = what.substr(0, last_read);
    const std::size_t read = std::min(position, text_.size());  // bytes read, within the text
    if (what.find("unexpected end of input") != std::string::npos)
      throw InputError(container_path(), "invalid JSON at byte " + std::to_string(text_.size()) + " (the end of the text): " + printable(what));
    // a broken string (bad UTF-8, a control character, a bad escape) is the value or key it is in,
    // and the byte shown the one that broke it (the lexer stops just after it)
    if (what.find("invalid string") != std::string::npos) {
      const bool in_key = !open_.empty() && !open_.back().is_array && !open_.back().pending_key;
      const std::string bad = read > 0 ? printable(text_.substr(read - 1, 1)) : "";  // the byte, as \xFF
      throw InputError(element_path(), "invalid JSON at byte " + std::to_string(read > 0 ? read - 1 : 0) +
                                           (in_key ? " (in a key)" : "") + ": " + printable(what) + (bad.empty() ? "" : " (" + bad + ")"));
    }
    // the offending token: a run of literal characters (NaN, -Infinity, nul, 1x) ending at the last
    // byte read, a string that ends there, or that one byte (a misplaced ':', ',' or bracket)
    std::size_t start = read > 0 ? read - 1 : 0;
    const auto literal = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.'; };
    // (a literal cut short by a non-literal byte, "nul]", stopped just after that byte)
    if (read > 1 && !literal(text_[read - 1]) && literal(text_[read - 2]) && what.find("invalid literal") != std::string::npos) --start;
    if (start < text_.size() && literal(text_[start])) {
      while (start > 0 && literal(text_[start - 1])) --start;
    } else if (read > 0 && text_[read - 1] == '"' && !last_token.empty() && last_token[0] == '"' && last_token.size() <= read) {
      start = read - last_token.size();
    }
    const auto at = [&](const char* word) { return text_.compare(start, std::strlen(word), word) == 0; };
    for (const char* word : {"NaN", "-NaN", "+NaN", "Infinity", "-Infinity", "+Infinity", "nan", "-nan", "inf", "-inf", "+inf"})
      if (start < text_.size() && at(word))
        throw InputError(element_path(), std::string(word) + " is not a JSON number (JSON has no NaN or Infinity; every number must be finite)");
    throw InputError(container_path(), "invalid JSON at byte " + std::to_string(start) + ": " + printable(what));
  }

 private:
  struct Open {
    bool is_array;
    std::size_t index = 0;    // arrays: the element being read
    std::string key;          // objects: the last key read
    bool pending_key = false; // objects: a key was read, its value not yet
    std::string path;         // of this array or object
  };

  // A value is complete: the next one in its array has the next index.
  bool value(bool ok) {
    if (open_.empty()) return ok;
    Open& o = open_.back();
    if (!o.is_array) {
      o.pending_key = false;
    } else if (++o.index > kMaxTensorElements) {  // before the text's numbers fill memory as json values
      throw InputError(o.path, "more than " + std::to_string(kMaxTensorElements) + " entries (the limit of a tensor)");
    }
    return ok;
  }

  void open(bool is_array) {
    const std::string path = element_path();
    if (open_.size() >= kMaxJsonDepth)
      throw InputError(path, "nested deeper than " + std::to_string(kMaxJsonDepth) +
                             " arrays and objects (a scenario needs at most a few; the limit keeps the parser's work bounded)");
    open_.push_back(Open{is_array, 0, "", false, path});
  }

  std::string container_path() const { return open_.empty() ? "" : open_.back().path; }

  // The value being read: the open array's next element, or the open object's pending key.
  std::string element_path() const {
    if (open_.empty()) return "";
    const Open& o = open_.back();
    if (o.is_array) return o.path + "[" + std::to_string(o.index) + "]";
    if (!o.pending_key) return o.path;
    return o.path.empty() ? printable(o.key) : o.path + "." + printable(o.key);
  }

  DomBuilder dom_;
  const std::string& text_;
  std::vector<Open> open_;
};

}  // namespace

json parse_scenario_text(const std::string& text) {
  if (text.size() > kMaxScenarioBytes)
    throw InputError("", "the JSON text is " + std::to_string(text.size()) + " bytes, more than the limit " +
                         std::to_string(kMaxScenarioBytes) + " (256 MiB)");
  json result;
  PathHandler handler(result, text);
  json::sax_parse(text, &handler);
  return result;
}

}  // namespace attnplay
