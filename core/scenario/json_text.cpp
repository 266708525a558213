// JSON text -> json, with errors that name the path of the value the parser stopped at (issue 18):
// `q[0][0][0][0]: 1e999 is outside float64`. nlohmann's SAX interface: a handler that builds the
// value through nlohmann's own DOM builder and keeps the path of every open array and object.
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

  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) {
    // where the offending token starts (the lexer has read last_token up to `position`)
    const std::size_t start = position >= last_token.size() ? position - last_token.size() : 0;
    // (start may be past the end: an empty text's error is at byte 1)
    const auto at = [&](const char* word) { return start < text_.size() && text_.compare(start, std::strlen(word), word) == 0; };
    if (ex.id == 406)  // a number the lexer read as +-inf
      throw InputError(element_path(), printable(last_token) + " is outside float64 (numbers must be finite, at most about 1.8e308 in magnitude)");
    for (const char* word : {"NaN", "-NaN", "Infinity", "-Infinity", "nan", "inf", "-inf"})
      if (at(word))
        throw InputError(element_path(), std::string(word) + " is not a JSON number (JSON has no NaN or Infinity; every number must be finite)");
    std::string what = ex.what();
    const auto syntax = what.find("syntax error");
    if (syntax != std::string::npos) what = what.substr(syntax);
    const auto last_read = what.find("; last read:");
    if (last_read != std::string::npos) what = what.substr(0, last_read);
    // a broken string (bad UTF-8, a control character, a bad escape) is the value or key it is in
    const bool in_string = !last_token.empty() && last_token[0] == '"';
    const std::string field = in_string ? element_path() : container_path();
    const std::string which = in_string && !open_.empty() && !open_.back().is_array && !open_.back().pending_key ? " (in a key)" : "";
    // the byte to show: in a string the one that broke it (the lexer stops just after it), else the token's first
    const std::size_t byte = in_string && position > 0 ? position - 1 : start;
    throw InputError(field, "invalid JSON at byte " + std::to_string(byte) + which + ": " + printable(what));
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
