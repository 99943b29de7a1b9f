# floor_test.cmake - checks tl_parse_floor's counts on files whose trees are known.
# cmake -DFLOOR=<tl_parse_floor> -DWORK=<scratch dir> -P floor_test.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/pkg/sub")
# "x = 1\n": module > expression_statement > assignment > identifier, "=", integer: 6 nodes.
file(WRITE "${WORK}/pkg/a.py" "x = 1\n")
# "f(y)" without a newline: module > expression_statement > call > identifier,
# argument_list > "(", identifier, ")": 8 nodes, 1 line.
file(WRITE "${WORK}/pkg/sub/b.py" "f(y)")
file(WRITE "${WORK}/pkg/sub/notes.txt" "not python\n")

function(expect jobs)
  execute_process(COMMAND "${FLOOR}" -j ${jobs} "${WORK}/pkg" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tl_parse_floor -j ${jobs} exited ${rc}: ${err}")
  endif()
  foreach(want "files 2" "lines 2" "bytes 10" "nodes 14" "syntax_error_files 0" "unreadable 0")
    string(FIND "${out}" "${want}\n" at)
    if(at LESS 0)
      message(FATAL_ERROR "tl_parse_floor -j ${jobs}: expected '${want}' in:\n${out}")
    endif()
  endforeach()
endfunction()
expect(1)
expect(3)

execute_process(COMMAND "${FLOOR}" "${WORK}/missing" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "a missing path should exit 1, got ${rc}")
endif()
