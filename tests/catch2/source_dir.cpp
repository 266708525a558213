// The checkout's root, where the fixtures and presets are read from. Only this file is compiled
// with the clone's path (CMakeLists.txt), so the other test objects come from ccache in any clone.
namespace attnplay::testing {
const char* source_dir() { return ATTNPLAY_SOURCE_DIR; }
}  // namespace attnplay::testing
