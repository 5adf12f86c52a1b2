# The vocabulary of `cleave convert` (convert_vocab.h): the library cleave_convert_vocab, built
# when jansson (tokenizer.json and the other JSON files) and protobuf-c (tokenizer.model, a
# SentencePiece ModelProto) are found; CLEAVE_HAVE_CONVERT_VOCAB says whether it was.
#
# tokenizer.model is read with the protobuf-c code protoc-c generates at build time from
# sentencepiece_model.proto (cleave's own, with the fields it reads); nothing generated is
# committed.
set(CLEAVE_HAVE_CONVERT_VOCAB OFF)
find_program(CLEAVE_PROTOC_C protoc-c)
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(CLEAVE_PROTOBUF_C IMPORTED_TARGET libprotobuf-c)
endif()
if(NOT JANSSON_FOUND OR NOT CLEAVE_PROTOC_C OR NOT CLEAVE_PROTOBUF_C_FOUND)
  message(WARNING "convert's vocabulary needs jansson and protobuf-c (Debian: libjansson-dev, "
                  "libprotobuf-c-dev, protobuf-c-compiler): it is not built")
  return()
endif()
set(CLEAVE_HAVE_CONVERT_VOCAB ON)

set(spm_gen_dir ${CMAKE_CURRENT_BINARY_DIR}/generated)
add_custom_command(
  OUTPUT ${spm_gen_dir}/sentencepiece_model.pb-c.c ${spm_gen_dir}/sentencepiece_model.pb-c.h
  COMMAND ${CMAKE_COMMAND} -E make_directory ${spm_gen_dir}
  COMMAND ${CLEAVE_PROTOC_C} --proto_path=${CMAKE_CURRENT_SOURCE_DIR} --c_out=${spm_gen_dir}
          sentencepiece_model.proto
  DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/sentencepiece_model.proto
  COMMENT "Generating the SentencePiece model's protobuf-c code"
  VERBATIM)
# The generated code, apart: its include directory is all the reader shares with it.
add_library(cleave_convert_spm_proto STATIC ${spm_gen_dir}/sentencepiece_model.pb-c.c)
target_include_directories(cleave_convert_spm_proto PUBLIC ${spm_gen_dir})
target_link_libraries(cleave_convert_spm_proto PUBLIC PkgConfig::CLEAVE_PROTOBUF_C)

add_library(cleave_convert_vocab STATIC
  convert_vocab.c
  vocab_bpe.c
  vocab_files.c
  vocab_pre.c
  vocab_special.c
  vocab_spm.c)
target_include_directories(cleave_convert_vocab PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(cleave_convert_vocab
  PUBLIC cleave_gguf cleave_cli_common PkgConfig::JANSSON
  PRIVATE cleave_convert_spm_proto)
# strdup and opendir are POSIX, not ISO C.
target_compile_definitions(cleave_convert_vocab PRIVATE _GNU_SOURCE)
cleave_warnings(cleave_convert_vocab)
