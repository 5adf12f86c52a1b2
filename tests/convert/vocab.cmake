# The vocabulary of cleave convert (tools/convert/convert_vocab.h), tested through vocab_gguf:
# a test program that writes a folder's tokenizer.* keys as a GGUF of metadata only, compared by
# test_vocab_*.py with what llama.cpp's converter writes (--vocab-only).
if(NOT TARGET cleave_convert_vocab)
  return()
endif()
add_executable(vocab_gguf ${CMAKE_CURRENT_SOURCE_DIR}/vocab_gguf.c)
target_link_libraries(vocab_gguf PRIVATE cleave_convert_vocab)
cleave_warnings(vocab_gguf)
foreach(file test_vocab_spm test_vocab_bpe test_vocab_hostile)
  if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${file}.py)
    string(REPLACE "test_vocab_" "" name ${file})
    add_test(NAME convert.vocab.${name}
      COMMAND ${CLEAVE_PYTEST} ${CMAKE_CURRENT_SOURCE_DIR}/${file}.py)
    set_tests_properties(convert.vocab.${name} PROPERTIES
      ENVIRONMENT "CLEAVE_VOCAB_GGUF=$<TARGET_FILE:vocab_gguf>;PYTHONDONTWRITEBYTECODE=1")
  endif()
endforeach()
