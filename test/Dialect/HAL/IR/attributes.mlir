// Every hal attribute and type, each optional part, and every enum spelling
// (bare keyword for one single-bit case, quoted `A|B` otherwise).
// RUN: fleet-opt %s > %t.1 && fleet-opt %t.1 > %t.2 && diff %t.1 %t.2
// RUN: fleet-opt %s --mlir-print-op-generic | fleet-opt > %t.3 && diff %t.1 %t.3
// RUN: FileCheck %s --input-file=%t.1

// CHECK: stream.topology = #hal.device.topology<links = [(@gpu0 -> @gpu1 = {transparent_access = true}), (@gpu1 -> @cpu = {}), (@cpu -> @gpu0 = {unified_memory = true}, {link_note = "pcie"}), (@gpu1 -> @gpu0 = {unified_memory = true, transparent_access = true}, {export_import = true})]>
module attributes {stream.topology = #hal.device.topology<links = [(@gpu0 -> @gpu1 = {transparent_access = true, unified_memory = false}), (@gpu1 -> @cpu = {}), (@cpu -> @gpu0 = {unified_memory = true}, {link_note = "pcie"}), (@gpu1 -> @gpu0 = {transparent_access = true, unified_memory = true}, {export_import = true})]>} {

// CHECK: @t0 = #hal.device.target<"local"> : !hal.device
util.global private @t0 = #hal.device.target<"local"> : !hal.device
// An empty config is not printed.
// CHECK: @t1 = #hal.device.target<"local"> : !hal.device
util.global private @t1 = #hal.device.target<"local", {}> : !hal.device
// CHECK: @t2 = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
util.global private @t2 = #hal.device.target<"local", {ordinal = 1 : index}> : !hal.device
// CHECK: @t3 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">]> : !hal.device
util.global private @t3 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">]> : !hal.device
// CHECK: @t4 = #hal.device.target<"local", {discrete = true, ordinal = 1 : index}, [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "host"}>, #hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device
util.global private @t4 = #hal.device.target<"local", {ordinal = 1 : index, discrete = true}, [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "host"}>, #hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device
// CHECK: @o = #hal.device.ordinal<0> : !hal.device
util.global private @o = #hal.device.ordinal<0> : !hal.device
// CHECK: @f = #hal.device.fallback<@gpu0> : !hal.device
util.global private @f = #hal.device.fallback<@gpu0> : !hal.device
// CHECK: @s = #hal.device.select<[#hal.device.target<"cuda"> : !hal.device, #hal.device.fallback<@cpu> : !hal.device]> : !hal.device
util.global private @s = #hal.device.select<[#hal.device.target<"cuda"> : !hal.device, #hal.device.fallback<@cpu> : !hal.device]> : !hal.device

// CHECK-LABEL: @affinities
// CHECK-SAME: a = #hal.device.affinity<@gpu0>
// Queue bit positions print ascending.
// CHECK-SAME: b = #hal.device.affinity<@gpu0, [0, 2]>
// CHECK-SAME: c = #hal.device.promise<@gpu1>
// CHECK-SAME: d = #hal.device.promise<@gpu1, [1]>
// CHECK-SAME: e = #hal.device.optimal<[#hal.device.affinity<@gpu0>, #hal.device.affinity<@gpu1>]>
// CHECK-SAME: f = #hal.device.affinity<@gpu0, []>
// CHECK-SAME: g = #hal.abi.convention<synchronous>
// CHECK-SAME: h = #hal.abi.convention<coarse_fences>
util.func private @affinities() attributes {
  a = #hal.device.affinity<@gpu0>,
  b = #hal.device.affinity<@gpu0, [2, 0]>,
  c = #hal.device.promise<@gpu1>,
  d = #hal.device.promise<@gpu1, [1]>,
  e = #hal.device.optimal<[#hal.device.affinity<@gpu0>, #hal.device.affinity<@gpu1>]>,
  f = #hal.device.affinity<@gpu0, []>,
  g = #hal.abi.convention<synchronous>,
  h = #hal.abi.convention<coarse_fences>
}

// CHECK-LABEL: @layouts
// CHECK-SAME: a = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-SAME: b = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<uniform_buffer, "ReadOnly|Indirect">], flags = Indirect>
// CHECK-SAME: c = #hal.executable.object<{path = "k.o"}>
// CHECK-SAME: d = #hal.executable.object<{data = dense<[1, 2]> : vector<2xi8>}>
// CHECK-SAME: e = #hal.device.link<(@a -> @b = {unified_memory = true})>
util.func private @layouts() attributes {
  a = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>,
  b = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<uniform_buffer, "ReadOnly|Indirect">], flags = Indirect>,
  c = #hal.executable.object<{path = "k.o"}>,
  d = #hal.executable.object<{data = dense<[1, 2]> : vector<2xi8>}>,
  e = #hal.device.link<(@a -> @b = {unified_memory = true})>
}

// Memory types: every case, bare and quoted, composites expanded.
// CHECK-LABEL: @memory_types
// CHECK-SAME: a = #hal.memory_type<"None">
// CHECK-SAME: b = #hal.memory_type<Optimal>
// CHECK-SAME: c = #hal.memory_type<HostVisible>
// CHECK-SAME: d = #hal.memory_type<HostCoherent>
// CHECK-SAME: e = #hal.memory_type<HostCached>
// CHECK-SAME: f = #hal.memory_type<"HostVisible|HostCoherent|HostLocal">
// CHECK-SAME: g = #hal.memory_type<DeviceVisible>
// CHECK-SAME: h = #hal.memory_type<"DeviceVisible|DeviceLocal">
// CHECK-SAME: i = #hal.memory_type<"HostVisible|HostCoherent">
util.func private @memory_types() attributes {
  a = #hal.memory_type<None>, b = #hal.memory_type<Optimal>,
  c = #hal.memory_type<"HostVisible">, d = #hal.memory_type<HostCoherent>,
  e = #hal.memory_type<HostCached>, f = #hal.memory_type<HostLocal>,
  g = #hal.memory_type<DeviceVisible>, h = #hal.memory_type<DeviceLocal>,
  i = #hal.memory_type<"HostVisible | HostCoherent">
}

// CHECK-LABEL: @buffer_usages
// CHECK-SAME: a = #hal.buffer_usage<"None">
// CHECK-SAME: b = #hal.buffer_usage<TransferSource>
// CHECK-SAME: c = #hal.buffer_usage<TransferTarget>
// CHECK-SAME: d = #hal.buffer_usage<"TransferSource|TransferTarget|Transfer">
// CHECK-SAME: e = #hal.buffer_usage<DispatchIndirectParameters>
// CHECK-SAME: f = #hal.buffer_usage<DispatchUniformRead>
// CHECK-SAME: g = #hal.buffer_usage<DispatchStorageRead>
// CHECK-SAME: h = #hal.buffer_usage<DispatchStorageWrite>
// CHECK-SAME: i = #hal.buffer_usage<"DispatchStorageRead|DispatchStorageWrite|DispatchStorage">
// CHECK-SAME: j = #hal.buffer_usage<DispatchImageRead>
// CHECK-SAME: k = #hal.buffer_usage<DispatchImageWrite>
// CHECK-SAME: l = #hal.buffer_usage<"DispatchImageRead|DispatchImageWrite|DispatchImage">
// CHECK-SAME: m = #hal.buffer_usage<SharingExport>
// CHECK-SAME: n = #hal.buffer_usage<SharingReplicate>
// CHECK-SAME: o = #hal.buffer_usage<SharingConcurrent>
// CHECK-SAME: p = #hal.buffer_usage<SharingImmutable>
// CHECK-SAME: q = #hal.buffer_usage<MappingScoped>
// CHECK-SAME: r = #hal.buffer_usage<MappingPersistent>
// CHECK-SAME: s = #hal.buffer_usage<MappingOptional>
// CHECK-SAME: t = #hal.buffer_usage<MappingAccessRandom>
// CHECK-SAME: u = #hal.buffer_usage<MappingAccessSequentialWrite>
// CHECK-SAME: v = #hal.buffer_usage<"MappingScoped|MappingAccessRandom|Mapping">
// CHECK-SAME: w = #hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage">
util.func private @buffer_usages() attributes {
  a = #hal.buffer_usage<None>, b = #hal.buffer_usage<TransferSource>,
  c = #hal.buffer_usage<TransferTarget>, d = #hal.buffer_usage<Transfer>,
  e = #hal.buffer_usage<DispatchIndirectParameters>,
  f = #hal.buffer_usage<DispatchUniformRead>,
  g = #hal.buffer_usage<DispatchStorageRead>,
  h = #hal.buffer_usage<DispatchStorageWrite>,
  i = #hal.buffer_usage<DispatchStorage>,
  j = #hal.buffer_usage<DispatchImageRead>,
  k = #hal.buffer_usage<DispatchImageWrite>,
  l = #hal.buffer_usage<DispatchImage>,
  m = #hal.buffer_usage<SharingExport>, n = #hal.buffer_usage<SharingReplicate>,
  o = #hal.buffer_usage<SharingConcurrent>,
  p = #hal.buffer_usage<SharingImmutable>,
  q = #hal.buffer_usage<MappingScoped>, r = #hal.buffer_usage<MappingPersistent>,
  s = #hal.buffer_usage<MappingOptional>,
  t = #hal.buffer_usage<MappingAccessRandom>,
  u = #hal.buffer_usage<MappingAccessSequentialWrite>,
  v = #hal.buffer_usage<Mapping>,
  w = #hal.buffer_usage<"Transfer|DispatchStorage">
}

// CHECK-LABEL: @flag_enums
// CHECK-SAME: a = #hal.alloca_flags<"None">
// CHECK-SAME: b = #hal.alloca_flags<IndeterminateLifetime>
// CHECK-SAME: c = #hal.dealloca_flags<PreferOrigin>
// CHECK-SAME: d = #hal.copy_flags<Reserved>
// CHECK-SAME: e = #hal.fill_flags<Reserved>
// CHECK-SAME: f = #hal.update_flags<Reserved>
// CHECK-SAME: g = #hal.execute_flags<Reserved>
// CHECK-SAME: h = #hal.fence_flags<Reserved>
// CHECK-SAME: i = #hal.wait_flags<Reserved>
// CHECK-SAME: j = #hal.dispatch_flags<Reserved>
// CHECK-SAME: k = #hal.execution_barrier_flags<Reserved>
// CHECK-SAME: l = #hal.command_buffer_mode<"None">
// CHECK-SAME: m = #hal.command_buffer_mode<OneShot>
// CHECK-SAME: n = #hal.command_buffer_mode<AllowInlineExecution>
// CHECK-SAME: o = #hal.command_buffer_mode<"OneShot|AllowInlineExecution">
// CHECK-SAME: p = #hal.command_category<"None">
// CHECK-SAME: q = #hal.command_category<Transfer>
// CHECK-SAME: r = #hal.command_category<"Transfer|Dispatch">
// CHECK-SAME: s = #hal.execution_stage<"None">
// CHECK-SAME: t = #hal.execution_stage<CommandIssue>
// CHECK-SAME: u = #hal.execution_stage<CommandProcess>
// CHECK-SAME: v = #hal.execution_stage<Dispatch>
// CHECK-SAME: w = #hal.execution_stage<Transfer>
// CHECK-SAME: x = #hal.execution_stage<CommandRetire>
// CHECK-SAME: y = #hal.execution_stage<Host>
// CHECK-SAME: z = #hal.execution_stage<"Dispatch|Transfer">
util.func private @flag_enums() attributes {
  a = #hal.alloca_flags<None>, b = #hal.alloca_flags<IndeterminateLifetime>,
  c = #hal.dealloca_flags<PreferOrigin>, d = #hal.copy_flags<Reserved>,
  e = #hal.fill_flags<Reserved>, f = #hal.update_flags<Reserved>,
  g = #hal.execute_flags<Reserved>, h = #hal.fence_flags<Reserved>,
  i = #hal.wait_flags<Reserved>, j = #hal.dispatch_flags<Reserved>,
  k = #hal.execution_barrier_flags<Reserved>,
  l = #hal.command_buffer_mode<None>, m = #hal.command_buffer_mode<OneShot>,
  n = #hal.command_buffer_mode<AllowInlineExecution>,
  o = #hal.command_buffer_mode<"OneShot|AllowInlineExecution">,
  p = #hal.command_category<None>, q = #hal.command_category<Transfer>,
  r = #hal.command_category<"Transfer|Dispatch">,
  s = #hal.execution_stage<None>, t = #hal.execution_stage<CommandIssue>,
  u = #hal.execution_stage<CommandProcess>, v = #hal.execution_stage<Dispatch>,
  w = #hal.execution_stage<Transfer>, x = #hal.execution_stage<CommandRetire>,
  y = #hal.execution_stage<Host>, z = #hal.execution_stage<"Dispatch|Transfer">
}

// Every hal type, including the ones only the parser knows.
// CHECK-LABEL: @types
// CHECK-SAME: (%arg0: !hal.device, %arg1: !hal.allocator, %arg2: !hal.buffer, %arg3: !hal.buffer_view, %arg4: !hal.fence, %arg5: !hal.command_buffer, %arg6: !hal.executable, %arg7: !hal.channel, %arg8: !hal.event, %arg9: !hal.file, %arg10: !hal.semaphore)
util.func private @types(%a: !hal.device, %b: !hal.allocator, %c: !hal.buffer, %d: !hal.buffer_view, %e: !hal.fence, %f: !hal.command_buffer, %g: !hal.executable, %h: !hal.channel, %i: !hal.event, %j: !hal.file, %k: !hal.semaphore)

}
