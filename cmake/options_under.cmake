# zkbatch_options_under(DIR OPTION [FOLDERS FOLDER...]): adds OPTION, a compile option, to
# every target that compiles code and is defined in DIR or a folder below it; with
# FOLDERS, only to those defined in one of the listed folders (paths from the project's
# source folder). PRIVATE, after the tree's own flags, so an optimization level wins.
# Called once every target exists: at the end of the folder that defines them, or
# deferred to the end of the project.
function(zkbatch_options_under dir option)
  cmake_parse_arguments(PARSE_ARGV 2 arg "" "" "FOLDERS")
  file(RELATIVE_PATH folder ${PROJECT_SOURCE_DIR} ${dir})
  if(NOT arg_FOLDERS OR folder IN_LIST arg_FOLDERS)
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      get_target_property(type ${target} TYPE)
      if(type MATCHES "^(EXECUTABLE|STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY)$")
        target_compile_options(${target} PRIVATE ${option})
      endif()
    endforeach()
  endif()
  get_property(subdirectories DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    zkbatch_options_under(${subdirectory} ${option} FOLDERS ${arg_FOLDERS})
  endforeach()
endfunction()

# The test suites whose own code orchestrates rather than computes: they start processes,
# read databases and compare text, while what they test (core's arithmetic, the plugins,
# SQLite) keeps its own level. They build at -O0 in the Release tree (tests/CMakeLists.txt)
# and in the ASan and TSan trees (cmake/sanitizers.cmake), which compiles in a third to a
# half of the time.
set(zkbatch_orchestrating_test_folders tests/support tests/store tests/manifest tests/plugins tests/pipeline
    tests/cli tests/compare tests/report tests/reliability tests/shards tests/slurm tests/devices tests/fuzz)
