# GoogleTest unit tests, run by `lit build/test` (so `make test` runs them).
# Like LLVM's test/Unit: this suite's site config lives in build/test/Unit
# and points lit at the test binaries under build/unittests.
import os

import lit.formats

config.name = "Fleet-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.fleet_obj_root, "unittests")
config.test_source_root = config.test_exec_root
# Every executable ending in "Tests" below build/unittests is a gtest binary.
config.test_format = lit.formats.GoogleTest(".", "Tests")
