# Fleet: the two set-up commands (README.md) and a few helpers.
#   make demo   install missing packages, build, run the main job
#   make test   install missing packages, build, run every lit and unit test
BUILD ?= build
CMAKE_FLAGS ?=
JOBS ?= 2

.PHONY: demo test test-tsan test-asan bootstrap configure build bench bench-full clean

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
	$(MAKE) test-tsan
	$(MAKE) test-asan

# The runtime built alone (no LLVM/MLIR visible to CMake) with ASan + UBSan:
# an artifact through its fleet-run, then the artifact fuzz corpus (every
# mutant rejected or run cleanly, leak check on); scripts/check-standalone-runtime.
test-asan: build
	scripts/check-standalone-runtime --asan $(BUILD)

# ThreadSanitizer run of the runtime's semaphore/fence/queue/failure/stress
# tests (the runtime library builds without MLIR, so this build is small).
TSAN_BUILD ?= $(BUILD)-tsan
test-tsan: configure
	@test -f $(TSAN_BUILD)/build.ninja || cmake -G Ninja -B $(TSAN_BUILD) \
	  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
	  -DLLVM_USE_LINKER=lld -DFLEET_ENABLE_TSAN=ON $(CMAKE_FLAGS)
	ninja -C $(TSAN_BUILD) -j $(JOBS) FleetRuntimeTests
	TSAN_OPTIONS=halt_on_error=1 $(TSAN_BUILD)/unittests/runtime/FleetRuntimeTests \
	  --gtest_filter='*SemaphoreTest.*:*FenceTest.*:*LocalSyncTest.*:*LocalTaskTest.*:*QueueFailureTest.*:*StressTest.*:*QueueTest.*'

demo: build
	@scripts/demo $(BUILD)

# make bench FIGURES="P3": only those rows of the table.
FIGURES ?=
bench: build
	@scripts/bench $(BUILD) $(FIGURES)

# Every row, the long ones too (MM4096); beyond make bench's 30 minutes.
bench-full: build
	@scripts/bench $(BUILD) --full

clean:
	rm -rf $(BUILD)
