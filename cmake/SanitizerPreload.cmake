# What a test that loads the library into Python (the extension, or ctypes on libcleave.so) needs
# in a sanitizer build: the library is instrumented but the interpreter is not, so the sanitizer
# runtime is preloaded into it, and leak detection is off (CPython keeps its objects at exit).
# Sets CLEAVE_SANITIZER_PYTHON_ENV: a list of NAME=VALUE for a test's ENVIRONMENT (empty in
# other builds).
set(CLEAVE_SANITIZER_PYTHON_ENV "")
if(CMAKE_C_FLAGS MATCHES "-fsanitize=[^ ]*address")
  if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
    set(asan_runtime_name libclang_rt.asan-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(asan_runtime_name libasan.so)
  endif()
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${asan_runtime_name}
    OUTPUT_VARIABLE asan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
  set(preload ${asan_runtime})
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU" AND CMAKE_C_FLAGS MATCHES "-fsanitize=[^ ]*undefined")
    execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libubsan.so
      OUTPUT_VARIABLE ubsan_runtime OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(preload "${asan_runtime}:${ubsan_runtime}")
  endif()
  set(CLEAVE_SANITIZER_PYTHON_ENV "LD_PRELOAD=${preload}"
    "ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1")
endif()
