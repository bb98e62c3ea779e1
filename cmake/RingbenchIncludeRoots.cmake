# Include roots that enforce the layering (transport/ and model/ know nothing of each other or of
# bench/; only bench/ executables use both).
#
# Each library publishes its headers through a directory of its own in the build tree,
# build/include/<name>/, holding a single symlink <name> -> the source folder. That directory,
# not the repository root, is the library's PUBLIC include directory, so `#include "model/x.h"`
# resolves only in targets that link ringbench_model; anything else gets "No such file". Files
# inside a folder still include each other by bare name or "../x.h", relative to themselves.
# tests/layering proves it: probes that cross a layer must fail to compile.
set(RINGBENCH_INCLUDE_ROOT ${PROJECT_BINARY_DIR}/include)

# ringbench_include_root(<target> <PUBLIC|PRIVATE|INTERFACE> <name> <source folder>)
# Makes "<name>/<header>" mean "<source folder>/<header>" for <target> (and, PUBLIC or INTERFACE,
# for whatever links it).
function(ringbench_include_root target scope name source_dir)
  set(root ${RINGBENCH_INCLUDE_ROOT}/${name})
  file(MAKE_DIRECTORY ${root})
  file(CREATE_LINK ${source_dir} ${root}/${name} SYMBOLIC)
  target_include_directories(${target} ${scope} ${root})
endfunction()
