# Kernel codegen GoogleTest binaries, run by `lit build/test` (so `make test`
# runs them). Same scheme as LLVM's test/Unit: the site config lives in
# build/test/CodegenUnit and points lit at build/unittests/Codegen.
# (When a project-wide test/Unit suite covers build/unittests, this one can
# go.)
import os

import lit.formats

config.name = "Fleet-Codegen-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.fleet_obj_root, "unittests", "Codegen")
config.test_source_root = config.test_exec_root
# Every executable ending in "Tests" there is a gtest binary.
config.test_format = lit.formats.GoogleTest(".", "Tests")
