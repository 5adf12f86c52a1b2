# Copies the ONNX .proto files into the import layout protoc-c needs (onnx/onnx.proto and
# onnx/onnx-data.proto under OUT_DIR). onnx-data.proto imports "onnx/onnx-ml.proto"; the build
# compiles it against the onnx.proto it was given, so the import is pointed there.
# Run as: cmake -DONNX_PROTO=... -DONNX_DATA_PROTO=... -DOUT_DIR=... -P stage_protos.cmake
foreach(var ONNX_PROTO ONNX_DATA_PROTO OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "stage_protos.cmake: ${var} is not set")
  endif()
endforeach()

file(MAKE_DIRECTORY "${OUT_DIR}/onnx")
configure_file("${ONNX_PROTO}" "${OUT_DIR}/onnx/onnx.proto" COPYONLY)

file(READ "${ONNX_DATA_PROTO}" data)
string(REGEX REPLACE "import \"onnx/onnx(-ml)?\\.proto\";" "import \"onnx/onnx.proto\";"
       staged "${data}")
if(NOT staged MATCHES "import \"onnx/onnx.proto\";")
  message(FATAL_ERROR "${ONNX_DATA_PROTO} does not import onnx/onnx.proto or onnx/onnx-ml.proto")
endif()
# Write only when the content changes, so that an unchanged file does not trigger a rebuild.
set(dest "${OUT_DIR}/onnx/onnx-data.proto")
set(old "")
if(EXISTS "${dest}")
  file(READ "${dest}" old)
endif()
if(NOT old STREQUAL staged)
  file(WRITE "${dest}" "${staged}")
endif()
