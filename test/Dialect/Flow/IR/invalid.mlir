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

// -----

util.func private @ex()
util.func private @f(%t: tensor<?xf32>) {
  // expected-error @+1 {{argument 0 has dynamic shape 'tensor<?xf32>'; only static shapes are supported}}
  %0 = flow.dispatch @ex::@entry(%t) : (tensor<?xf32>) -> tensor<4xf32>
  util.return
}

// -----

util.func private @ex()
util.func private @f(%t: tensor<4xf32>) {
  // expected-error @+1 {{must be @executable::@export}}
  %0 = flow.dispatch @ex(%t) : (tensor<4xf32>) -> tensor<4xf32>
  util.return
}
