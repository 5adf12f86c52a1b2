# The vocabulary of cleave convert (tools/convert/convert_vocab.h), tested through vocab_gguf:
# a test program that writes a folder's tokenizer.* keys as a GGUF of metadata only, compared by
# test_vocab_*.py with what llama.cpp's converter writes (--vocab-only).
if(NOT TARGET cleave_convert_vocab)
  return()
endif()
add_executable(vocab_gguf ${CMAKE_CURRENT_SOURCE_DIR}/vocab_gguf.c)
target_link_libraries(vocab_gguf PRIVATE cleave_convert_vocab)
cleave_warnings(vocab_gguf)
if(NOT TARGET cleave)
  return()
endif()
# pytest by Debian's /usr/bin/python3 with python3-sentencepiece (the trained models); the
# converter and gguf-py from tests/gguf/llama/setup.sh (hostile needs neither).
execute_process(COMMAND ${CLEAVE_TEST_PYTHON} -c "import pytest, sentencepiece"
  RESULT_VARIABLE vocab_python_missing OUTPUT_QUIET ERROR_QUIET)
if(vocab_python_missing)
  message(WARNING "${CLEAVE_TEST_PYTHON} cannot import pytest or sentencepiece: the "
                  "convert.vocab tests are skipped")
  return()
endif()
foreach(name spm bpe hostile)
  add_test(NAME convert.vocab.${name}
    COMMAND ${CLEAVE_PYTEST} ${CMAKE_CURRENT_SOURCE_DIR}/test_vocab_${name}.py)
  set_tests_properties(convert.vocab.${name} PROPERTIES TIMEOUT 900
    ENVIRONMENT "CLEAVE=$<TARGET_FILE:cleave>;CLEAVE_VOCAB_GGUF=$<TARGET_FILE:vocab_gguf>;CLEAVE_TEST_TMP=${CMAKE_CURRENT_BINARY_DIR}/work;PYTHONPATH=${PROJECT_SOURCE_DIR}/tests/cli;PYTHONDONTWRITEBYTECODE=1"
    SKIP_REGULAR_EXPRESSION "SKIPPED \\[[0-9]+\\] [^\n]*cannot be had here")
endforeach()
