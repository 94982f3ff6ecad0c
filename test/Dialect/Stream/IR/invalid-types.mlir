// RUN: fleet-stream-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected one of ["*"*, external, staging, transient, variable, constant] for resource lifetime, got: forever}}
util.func private @f(%a: !stream.resource<forever>)

// -----

// expected-error @+1 {{expected 'immediate'}}
util.func private @f() attributes {a = #stream.timepoint<later>}
