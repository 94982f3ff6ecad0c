//===- InlineVector.h - a vector with inline storage -------------*- C++ -*-===//
//
// Keeps the first N elements inside the owning object, so the common small
// cases (a fence with one or two semaphores, a command buffer with one
// dispatch and a few bindings) cost no heap allocation on the queue-op hot
// path; larger sizes spill to the heap like std::vector.
//
// Ownership: owns its elements. Thread safety: none (like std::vector).
// Failure behaviour: allocation failure terminates, as std::vector's would
// with exceptions off.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_INLINEVECTOR_H
#define FLEET_RUNTIME_HAL_INLINEVECTOR_H

#include "fleet/runtime/hal/Ref.h"

#include <cstddef>
#include <new>
#include <utility>

namespace fleet::runtime::hal {

template <typename T, size_t N> class InlineVector {
public:
  InlineVector() = default;
  InlineVector(const InlineVector &) = delete;
  InlineVector &operator=(const InlineVector &) = delete;
  ~InlineVector() {
    clear();
    if (data_ != inlineData())
      ::operator delete(data_);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T *data() { return data_; }
  const T *data() const { return data_; }
  T *begin() { return data_; }
  T *end() { return data_ + size_; }
  const T *begin() const { return data_; }
  const T *end() const { return data_ + size_; }
  T &operator[](size_t i) { return data_[i]; }
  const T &operator[](size_t i) const { return data_[i]; }
  T &back() { return data_[size_ - 1]; }
  operator Span<const T>() const { return Span<const T>(data_, size_); }

  template <typename... Args> T &emplace_back(Args &&...args) {
    if (size_ == capacity_)
      grow(capacity_ * 2);
    T *slot = new (data_ + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *slot;
  }
  void push_back(const T &value) { emplace_back(value); }
  void push_back(T &&value) { emplace_back(std::move(value)); }
  template <typename It> void append(It first, It last) {
    for (; first != last; ++first)
      emplace_back(*first);
  }
  /// Drops elements past `count` (never grows).
  void truncate(size_t count) {
    while (size_ > count)
      data_[--size_].~T();
  }
  void clear() { truncate(0); }

private:
  T *inlineData() { return reinterpret_cast<T *>(storage_); }

  void grow(size_t capacity) {
    if (capacity == 0)
      capacity = 4;
    T *fresh = static_cast<T *>(::operator new(capacity * sizeof(T)));
    for (size_t i = 0; i < size_; ++i) {
      new (fresh + i) T(std::move(data_[i]));
      data_[i].~T();
    }
    if (data_ != inlineData())
      ::operator delete(data_);
    data_ = fresh;
    capacity_ = capacity;
  }

  T *data_ = inlineData();
  size_t size_ = 0;
  size_t capacity_ = N;
  alignas(T) unsigned char storage_[N == 0 ? 1 : N * sizeof(T)];
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_INLINEVECTOR_H
