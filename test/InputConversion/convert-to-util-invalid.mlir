// RUN: fleet-opt %s --input-convert-to-util --split-input-file --verify-diagnostics

module {
  // expected-note @+1 {{first named module here}}
  builtin.module @a {}
  // expected-error @+1 {{only one named module per compilation unit is supported; compile @b separately}}
  builtin.module @b {}
}
