// module_b: exports `mul`, whose result is produced in the caller's storage
// `%out` (`iree.abi.output = 0`: result 0 aliases this argument).
builtin.module @module_b {
  func.func @mul(%lhs: tensor<4096xf32>, %rhs: tensor<4096xf32>,
                 %out: tensor<4096xf32> {iree.abi.output = 0 : index}) -> tensor<4096xf32> {
    %result = arith.mulf %lhs, %rhs : tensor<4096xf32>
    return %result : tensor<4096xf32>
  }
}
