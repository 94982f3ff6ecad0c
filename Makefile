# Fleet: the two set-up commands (README.md) and a few helpers.
#   make demo   install missing packages, build, run the main job
#   make test   install missing packages, build, run every lit and unit test
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= 2

.PHONY: demo test bootstrap configure build bench clean

bootstrap:
	@scripts/bootstrap

$(BUILD)/build.ninja: | bootstrap
	cmake -G Ninja -B $(BUILD) \
	  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	  -DLLVM_USE_LINKER=lld $(CMAKE_FLAGS)

configure: bootstrap $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD) -j $(JOBS)

test: build
	/usr/lib/llvm-22/bin/lit -sv $(BUILD)/test

demo: build
	@scripts/demo $(BUILD)

bench: build
	@scripts/bench $(BUILD)

clean:
	rm -rf $(BUILD)
