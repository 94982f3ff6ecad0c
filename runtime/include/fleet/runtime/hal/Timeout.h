//===- Timeout.h - bounds of blocking runtime calls --------------*- C++ -*-===//
//
// Every blocking call of the runtime takes a Timeout. A Timeout is an absolute
// deadline on the steady clock, fixed when the Timeout is built, so a wait made
// of several steps cannot overrun it.
//
// Ownership: plain value. Thread safety: immutable. Failure behaviour: a wait
// that reaches its deadline returns DeadlineExceeded naming what it waited on.
// Infinite waits exist for callers that can otherwise cancel (a semaphore
// failure reaches every waiter), but tests and tools should pass a bound.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_TIMEOUT_H
#define FLEET_RUNTIME_HAL_TIMEOUT_H

#include <chrono>
#include <cstdint>

namespace fleet::runtime::hal {

class Timeout {
public:
  using Clock = std::chrono::steady_clock;

  static Timeout infinite() { return Timeout(Clock::time_point::max()); }
  /// Polls: never blocks.
  static Timeout immediate() { return Timeout(Clock::time_point::min()); }
  static Timeout milliseconds(uint64_t ms) {
    return Timeout(Clock::now() + std::chrono::milliseconds(ms));
  }
  static Timeout nanoseconds(uint64_t ns) {
    return Timeout(Clock::now() + std::chrono::nanoseconds(ns));
  }
  static Timeout at(Clock::time_point deadline) { return Timeout(deadline); }

  bool isInfinite() const { return deadline_ == Clock::time_point::max(); }
  bool isImmediate() const { return deadline_ == Clock::time_point::min(); }
  Clock::time_point deadline() const { return deadline_; }
  bool expired() const { return !isInfinite() && Clock::now() >= deadline_; }

private:
  explicit Timeout(Clock::time_point deadline) : deadline_(deadline) {}
  Clock::time_point deadline_;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_TIMEOUT_H
