// A layering probe: includes one header, named by LAYERING_PROBE_HEADER, and nothing else.
// tests/layering/CMakeLists.txt builds it against one library at a time; it must compile exactly
// when that library may see the header.
#include LAYERING_PROBE_HEADER
