// RUN: fleet-opt %s -split-input-file -verify-diagnostics

util.func private @f(%t: tensor<?x?xf32>, %n: index) {
  // expected-error @+1 {{dynamic dimension count mismatch: expected 2, got 1}}
  %0 = flow.tensor.transfer %t : tensor<?x?xf32>{%n} to #hal.device.affinity<@d>
  util.return
}

// -----

util.func private @f(%t: tensor<4xf32>, %n: index) {
  // expected-error @+1 {{dynamic dimension count mismatch: expected 0, got 1}}
  %0 = flow.tensor.barrier %t : tensor<4xf32>{%n} on #hal.device.affinity<@d>
  util.return
}
