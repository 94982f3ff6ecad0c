# Fleet lit configuration.
import os
import shutil
import subprocess

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
config.substitutions.append(("%fleet_obj_root", config.fleet_obj_root))

# The ONNX tests (`REQUIRES: onnx`) need the importer's Python environment
# (.venv/, made by scripts/bootstrap; FLEET_PYTHON overrides it). Outside CI
# they are skipped, with the reason printed, when it is missing; with
# CI=true they run anyway and fail (docs/onnx.md).
llvm_config.with_system_environment(["FLEET_PYTHON", "FLEET_IMPORT", "CI"])
fleet_python = os.environ.get("FLEET_PYTHON") or config.fleet_python
config.substitutions.append(("%fleet_python", fleet_python))


def _onnx_environment_problem():
    if not os.access(fleet_python, os.X_OK):
        return f"{fleet_python} does not exist"
    probe = ("import importlib.util as u, sys; "
             "m = [n for n in ('onnx', 'onnxruntime', 'torch_mlir') if not u.find_spec(n)]; "
             "print(' '.join(m)); sys.exit(1 if m else 0)")
    try:
        r = subprocess.run([fleet_python, "-c", probe], capture_output=True,
                           text=True, timeout=60)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{fleet_python} does not run ({e})"
    if r.returncode != 0:
        return f"{fleet_python} lacks {r.stdout.strip() or 'its packages'}"
    return None


_problem = _onnx_environment_problem()
if _problem is None:
    config.available_features.add("onnx")
elif os.environ.get("CI") == "true":
    lit_config.warning(f"ONNX environment missing: {_problem}; with CI=true "
                       "the ONNX tests run and fail (run scripts/bootstrap)")
    config.available_features.add("onnx")
else:
    lit_config.note(f"ONNX tests skipped: {_problem} "
                    "(run scripts/bootstrap to create .venv/)")

# Kernels compiled for Haswell (`REQUIRES: avx2`: AVX2 and FMA, which
# every x86-64 CPU of the last decade has) run on this host.
try:
    with open("/proc/cpuinfo") as _cpuinfo:
        _flags = next((line.split(":", 1)[1].split() for line in _cpuinfo
                       if line.startswith("flags")), [])
    if "avx2" in _flags and "fma" in _flags:
        config.available_features.add("avx2")
except OSError:
    pass

# MPI tests (`REQUIRES: mpi`, test/MPI): the mpi driver's device servers
# under mpirun, on loopback only (test/MPI/Inputs/mpirun.sh), one test at a
# time. Skipped, with the reason, when the build has no mpi driver or mpirun
# is missing; with CI=true a missing mpirun is a failure instead. They
# share the "devices" parallelism group with the Vulkan tests.
_mpi_problem = None
if not getattr(config, "fleet_has_mpi", False):
    _mpi_problem = "the build has no mpi driver (FLEET_ENABLE_MPI=OFF)"
elif shutil.which("mpirun") is None:
    _mpi_problem = "mpirun is missing (Debian: openmpi-bin)"
if _mpi_problem is None or os.environ.get("CI") == "true":
    config.available_features.add("mpi")
    if _mpi_problem:
        lit_config.warning(f"MPI: {_mpi_problem}; with CI=true the MPI "
                           "tests run and fail (run scripts/bootstrap)")
else:
    lit_config.note(f"MPI tests skipped: {_mpi_problem}")

# Vulkan tests (`REQUIRES: vulkan`, test/Vulkan) run on Mesa's lavapipe, with
# VK_ICD_FILENAMES pinned to its ICD (other ICDs may be installed) and the
# Khronos validation layer on (FLEET_VULKAN_VALIDATION=1: every message is
# printed and fails the test that caused it). LP_NUM_THREADS=2: lavapipe's
# threads, one per core here. They share one parallelism group: one at a
# time. Skipped, with the reason, when the build has no vulkan driver or the
# lvp ICD is missing; with CI=true a missing ICD is a failure instead.
# Tests that spawn device processes or drive Vulkan run one at a time, all
# of them together (group "devices": test/MPI and test/Vulkan).
lit_config.parallelism_groups["devices"] = 1
_lvp_icd = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
_vulkan_problem = None
if not getattr(config, "fleet_has_vulkan", False):
    _vulkan_problem = "the build has no vulkan driver (FLEET_ENABLE_VULKAN=OFF)"
elif not os.path.exists(_lvp_icd):
    _vulkan_problem = f"{_lvp_icd} is missing (Debian: mesa-vulkan-drivers)"
if _vulkan_problem is None or (os.environ.get("CI") == "true" and
                               getattr(config, "fleet_has_vulkan", False)):
    config.available_features.add("vulkan")
    config.environment["VK_ICD_FILENAMES"] = _lvp_icd
    config.environment["FLEET_VULKAN_VALIDATION"] = "1"
    config.environment["LP_NUM_THREADS"] = "2"
    # No on-disk shader cache: each run compiles its pipelines afresh, so
    # tests share no state through ~/.cache/mesa_shader_cache. (A fleet-run
    # of test/Vulkan/programs.test died with SIGSEGV twice in about a dozen
    # runs beside other heavy work, with the cache on; not reproduced in
    # 200 direct runs; the cache is the state those runs shared.)
    config.environment["MESA_SHADER_CACHE_DISABLE"] = "true"
    config.environment["XDG_RUNTIME_DIR"] = "/tmp"
    if _vulkan_problem:
        lit_config.warning(f"Vulkan: {_vulkan_problem}; with CI=true the "
                           "Vulkan tests run and fail (run scripts/bootstrap)")
else:
    lit_config.note(f"Vulkan tests skipped: {_vulkan_problem}")
