# A thin wrapper around CMake for the two everyday commands; CMake is the build.
BUILD ?= build
MAKEFLAGS += --no-print-directory
JOBS ?= 2
CMAKE_FLAGS ?=
CTEST_ARGS ?=

.PHONY: all demo test deps install clean

all:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)

# Builds the library and the cleave command (no test dependencies needed) and runs the demo.
demo:
	cmake -S . -B $(BUILD) -DBUILD_TESTING=OFF $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS) --target cleave
	$(BUILD)/tools/cleave demo

# Installs the Debian packages the tests need (when missing), builds everything with the
# ONNX component, and runs the whole suite.
test: deps
	cmake -S . -B $(BUILD) -DBUILD_TESTING=ON -DCLEAVE_WITH_ONNX=ON -DCLEAVE_BUILD_PYTHON=ON $(CMAKE_FLAGS)
	cmake --build $(BUILD) -j$(JOBS)
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) $(CTEST_ARGS)

deps:
	sh .ci/deps

install: all
	cmake --install $(BUILD)

clean:
	rm -rf $(BUILD)
