# Tablegen helpers for Fleet's dialects.

# fleet_dialect_tablegen(<Name> <namespace> [SHARDS n])
# Generates <Name>Ops/Types/Attrs/Enums/Dialect .h.inc/.cpp.inc from <Name>Ops.td.
# With SHARDS n the op definitions are split into n sections (GET_OP_DEFS_i)
# that hand-written <Name>OpsShard<i>.cpp files compile separately
# (docs/build.md pitfall 9: mlir-src-sharder is not shipped by Debian).
function(fleet_dialect_tablegen name ns)
  cmake_parse_arguments(ARG "" "SHARDS" "" ${ARGN})
  set(shard_flags)
  if(ARG_SHARDS)
    set(shard_flags -op-shard-count=${ARG_SHARDS})
  endif()
  set(LLVM_TARGET_DEFINITIONS ${name}Ops.td)
  mlir_tablegen(${name}Ops.h.inc -gen-op-decls ${shard_flags})
  mlir_tablegen(${name}Ops.cpp.inc -gen-op-defs ${shard_flags})
  mlir_tablegen(${name}Types.h.inc -gen-typedef-decls -typedefs-dialect=${ns})
  mlir_tablegen(${name}Types.cpp.inc -gen-typedef-defs -typedefs-dialect=${ns})
  mlir_tablegen(${name}Attrs.h.inc -gen-attrdef-decls -attrdefs-dialect=${ns})
  mlir_tablegen(${name}Attrs.cpp.inc -gen-attrdef-defs -attrdefs-dialect=${ns})
  mlir_tablegen(${name}Enums.h.inc -gen-enum-decls)
  mlir_tablegen(${name}Enums.cpp.inc -gen-enum-defs)
  mlir_tablegen(${name}Dialect.h.inc -gen-dialect-decls -dialect=${ns})
  mlir_tablegen(${name}Dialect.cpp.inc -gen-dialect-defs -dialect=${ns})
  add_public_tablegen_target(Fleet${name}IncGen)
endfunction()

# fleet_interface_tablegen(<Name>): op, attribute and type interfaces of <Name>.td.
function(fleet_interface_tablegen name)
  set(LLVM_TARGET_DEFINITIONS ${name}.td)
  mlir_tablegen(${name}.h.inc -gen-op-interface-decls)
  mlir_tablegen(${name}.cpp.inc -gen-op-interface-defs)
  string(REPLACE "Interfaces" "" base ${name})
  mlir_tablegen(${base}AttrInterfaces.h.inc -gen-attr-interface-decls)
  mlir_tablegen(${base}AttrInterfaces.cpp.inc -gen-attr-interface-defs)
  mlir_tablegen(${base}TypeInterfaces.h.inc -gen-type-interface-decls)
  mlir_tablegen(${base}TypeInterfaces.cpp.inc -gen-type-interface-defs)
  add_public_tablegen_target(Fleet${name}IncGen)
endfunction()

# fleet_library(<name> SRCS... [DEPS incgen...] [LINK libs...]): a Fleet library
# linked against libMLIR.so (docs/build.md pitfall 4).
function(fleet_library name)
  cmake_parse_arguments(ARG "" "" "DEPS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPS)
    add_dependencies(${name} ${ARG_DEPS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK} MLIR)
  set_property(TARGET ${name} PROPERTY POSITION_INDEPENDENT_CODE ON)
  # For the link graph the layering test reads (cmake/LinkGraph.cmake).
  set_property(GLOBAL APPEND PROPERTY FLEET_LIBRARIES ${name})
endfunction()
