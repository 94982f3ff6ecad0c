# Fleet lit configuration.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "Fleet"
# The internal shell also provides `diff` (not on every machine of this kind).
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fleet_obj_root, "test")

# FileCheck and not are installed as FileCheck-22 etc.; the unsuffixed names
# live in the LLVM tools dir (docs/build.md pitfall 6).
# with_environment(append_path=True) puts the directory in front of the
# existing PATH; append_path=False would replace PATH altogether (then only
# the substituted tools, not split-file, sed or python3, could be found).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.fleet_tools_dir, append_path=True)
llvm_config.use_default_substitutions()

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%fleet_src_root", config.fleet_src_root))
config.substitutions.append(("%fleet_tools", config.fleet_tools_dir))
