# The slide decks (slides/): their check, a test of every build, and the
# `slides` target that renders them with Marp, which is not part of the default
# build (it needs node and npm, and fetches Marp from npm on first use).
#
#   cmake --build build --target slides       HTML, and PDF where Chromium is installed
#   cmake --build build --target slides-png   also one PNG per slide, to look at
#
# Both write to build/slides/ (see slides/render.sh).

find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  # Every deck: notes on every slide, its images present and well-formed, the
  # diagram the lesson needs.
  add_test(NAME slides.check
           COMMAND Python3::Interpreter ${CMAKE_SOURCE_DIR}/slides/check_slides.py
                   ${CMAKE_SOURCE_DIR}/slides)
  # The check itself must be able to fail: on a broken folder it names each problem.
  add_test(NAME slides.check-catches-bad-decks
           COMMAND sh -c [[
             out=$("$0" "$1" "$2"); status=$?
             printf '%s\n' "$out"
             [ "$status" -eq 1 ] &&
             printf '%s' "$out" | grep -q 'slide 2 has no presenter note' &&
             printf '%s' "$out" | grep -q "slide 3's note has no 'Ask:' line" &&
             printf '%s' "$out" | grep -q 'missing image img/missing.svg' &&
             printf '%s' "$out" | grep -q 'broken.svg is not well-formed XML' &&
             printf '%s' "$out" | grep -q 'must show img/grid-of-blocks.svg' &&
             printf '%s' "$out" | grep -q 'img/unused.svg is shown by no deck'
           ]] $<TARGET_FILE:Python3::Interpreter> ${CMAKE_SOURCE_DIR}/slides/check_slides.py
              ${CMAKE_SOURCE_DIR}/tests/slides-bad)
else()
  message(STATUS "Python 3 not found: the slides.check tests are left out")
endif()

add_custom_target(slides
  COMMAND ${CMAKE_SOURCE_DIR}/slides/render.sh ${CMAKE_BINARY_DIR}/slides
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  USES_TERMINAL
  COMMENT "Rendering the slides with Marp into ${CMAKE_BINARY_DIR}/slides")
add_custom_target(slides-png
  COMMAND ${CMAKE_SOURCE_DIR}/slides/render.sh --png ${CMAKE_BINARY_DIR}/slides
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  USES_TERMINAL
  COMMENT "Rendering the slides with Marp, one PNG per slide, into ${CMAKE_BINARY_DIR}/slides")
