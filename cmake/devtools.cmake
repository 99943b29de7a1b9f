# devtools.cmake - targets for working on the code, none built by default:
#   format        clang-format -i (style: .clang-format) over the C sources of include/, src/, tests/unit/,
#                 bench/
#   format-check  the same as a dry run that fails when a file would change
#   lint          compiles src/**/*.c with -Wmissing-prototypes -Wmissing-declarations into object files
#                 (linked into nothing): a global function without a prior declaration in a header
#                 should be static or declared (`cmake --build build --target lint -- -k` lists all)
file(GLOB_RECURSE TL_FORMAT_SOURCES CONFIGURE_DEPENDS
     "${CMAKE_SOURCE_DIR}/include/*.h" "${CMAKE_SOURCE_DIR}/src/*.c" "${CMAKE_SOURCE_DIR}/src/*.h"
     "${CMAKE_SOURCE_DIR}/tests/unit/*.c" "${CMAKE_SOURCE_DIR}/tests/unit/*.h"
     "${CMAKE_SOURCE_DIR}/bench/*.c" "${CMAKE_SOURCE_DIR}/bench/*.h" "${CMAKE_SOURCE_DIR}/bench/*.cu")
list(SORT TL_FORMAT_SOURCES)

find_program(TL_CLANG_FORMAT NAMES clang-format-14 clang-format DOC "clang-format for the format targets")
if(TL_CLANG_FORMAT)
  add_custom_target(format
    COMMAND "${TL_CLANG_FORMAT}" --style=file -i ${TL_FORMAT_SOURCES}
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
    COMMENT "clang-format -i over include/, src/, tests/unit/ and bench/"
    VERBATIM)
  add_custom_target(format-check
    COMMAND "${TL_CLANG_FORMAT}" --style=file --dry-run --Werror ${TL_FORMAT_SOURCES}
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
    COMMENT "clang-format --dry-run --Werror over include/, src/, tests/unit/ and bench/"
    VERBATIM)
else()
  set(tl_no_clang_format "${CMAKE_COMMAND}" -E echo "format: clang-format not found (apt-get install clang-format)")
  add_custom_target(format COMMAND ${tl_no_clang_format} COMMAND false VERBATIM)
  add_custom_target(format-check COMMAND ${tl_no_clang_format} COMMAND false VERBATIM)
endif()

add_library(trainlint_lint OBJECT EXCLUDE_FROM_ALL ${TL_CORE_SOURCES} ${TL_APP_SOURCES} "${CMAKE_SOURCE_DIR}/src/main.c")
target_include_directories(trainlint_lint PRIVATE "${CMAKE_SOURCE_DIR}/include" ${TL_PRIVATE_INCLUDES})
target_compile_options(trainlint_lint PRIVATE ${TL_WARNINGS} -Wmissing-prototypes -Wmissing-declarations)
target_compile_definitions(trainlint_lint PRIVATE _POSIX_C_SOURCE=200809L _DEFAULT_SOURCE TL_VERSION="${PROJECT_VERSION}")
target_link_libraries(trainlint_lint PRIVATE tl_grammar_python tl_grammar_toml PkgConfig::TREESITTER PkgConfig::PCRE2
                      PkgConfig::CJSON)
add_custom_target(lint)
add_dependencies(lint trainlint_lint)
