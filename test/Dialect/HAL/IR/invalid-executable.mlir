// Verifier and parse errors of the executable ops, one case per rule.
// RUN: fleet-opt %s -split-input-file -verify-diagnostics

hal.executable private @ex {
  // expected-error @+1 {{has 2 hal.executable.condition ops; at most one is allowed}}
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    hal.executable.condition(%dev: !hal.device) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    }
    hal.executable.condition(%dev: !hal.device) -> i1 {
      %false = arith.constant false
      hal.return %false : i1
    }
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{condition takes only the !hal.device argument, got 2 arguments}}
    hal.executable.condition(%dev: !hal.device, %n: index) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    }
  }
}

// -----

hal.executable private @ex {
  // expected-error @+1 {{expected an executable target (#hal.executable.target<...>), got #hal.device.affinity<@d>}}
  hal.executable.variant public @v target(#hal.device.affinity<@d>) {
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{has a condition but no fallback export}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%dev: !hal.device) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    }
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{has a fallback export but no condition}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) fallback(@b)
    hal.executable.export public @b layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{fallback @missing is not an export of the enclosing variant}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%dev: !hal.device) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    } fallback(@missing)
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{fallback @b has layout #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>]>, which differs from this export's layout #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%dev: !hal.device) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    } fallback(@b)
    hal.executable.export public @b layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>]>)
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{fallback @a names this export}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%dev: !hal.device) -> i1 {
      %true = arith.constant true
      hal.return %true : i1
    } fallback(@a)
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{condition region must return (i1) through hal.return, got (index)}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) condition(%dev: !hal.device) -> i1 {
      %c0 = arith.constant 0 : index
      hal.return %c0 : index
    } fallback(@b)
    hal.executable.export public @b layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{workgroup count region must take a !hal.device as its first argument}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%n: index) -> (index, index, index) {
      hal.return %n, %n, %n : index, index, index
    }
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{workgroup count region workload argument #1 must be index, got 'i32'}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: i32) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // expected-error @+1 {{workgroup count region must return (index, index, index) through hal.return, got (index, index)}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      hal.return %n, %n : index, index
    }
  }
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "embedded-elf-x86_64">) {
    // The signature itself must say three index results.
    // expected-error @+1 {{a workgroup count region must return (index, index, index)}}
    hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device) -> (index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1 : index, index
    }
  }
}

// -----

util.func public @return_outside(%n: index) {
  // expected-error @+1 {{expects parent op to be one of 'hal.executable.export, hal.executable.condition'}}
  hal.return %n : index
}

// -----

hal.executable private @ex {
  // expected-error @+1 {{expects parent op 'hal.executable.variant'}}
  hal.executable.export public @a layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
}

// -----

util.func public @lookup_missing(%dev: !hal.device) {
  // expected-error @+1 {{executable @missing does not name a hal.executable}}
  %exe = hal.executable.lookup device(%dev : !hal.device) executable(@missing) : !hal.executable
  util.return
}

// -----

util.global private @not_an_executable : i32

util.func public @lookup_not_executable(%dev: !hal.device) {
  // expected-error @+1 {{executable @not_an_executable does not name a hal.executable}}
  %exe = hal.executable.lookup device(%dev : !hal.device) executable(@not_an_executable) : !hal.executable
  util.return
}

// -----

util.func public @calculate_missing(%dev: !hal.device) {
  // expected-error @+1 {{target @missing::@v::@e does not name an export @executable::@variant::@export}}
  %x, %y, %z = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@missing::@v::@e) : index, index, index
  util.return
}

// -----

hal.executable private @ex {
  hal.executable.variant public @v target(<"llvm-cpu", "fleet-object-x86_64">) {
    hal.executable.export public @e ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>) count(%dev: !hal.device, %n: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %n, %c1, %c1 : index, index, index
    }
  }
}

util.func public @calculate_wrong_workload(%dev: !hal.device) {
  // expected-error @+1 {{passes 0 workload values but the count region of @ex::@v::@e takes 1}}
  %x, %y, %z = hal.executable.calculate_workgroups device(%dev : !hal.device) target(@ex::@v::@e) : index, index, index
  util.return
}
