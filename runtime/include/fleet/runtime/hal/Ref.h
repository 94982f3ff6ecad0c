//===- Ref.h - intrusive reference counting and spans ------------*- C++ -*-===//
//
// Runtime objects (devices, buffers, semaphores, fences, command buffers,
// executables, ...) derive from RefCounted and are handled through Ref<T>.
//
// Ownership: an object is born with one reference, which `Ref<T>::adopt` (or
// makeRef) takes over; every Ref copy adds one; the object deletes itself when
// the last Ref goes. Raw pointers and references passed to API calls are
// borrowed for the duration of the call; an object that must keep something
// alive (a queue op keeps its buffers, a command buffer its executables)
// retains it itself.
// Thread safety: retain/release are atomic, so Refs to one object may be
// copied and dropped from any thread. The objects' own thread-safety is
// stated in their headers.
// Failure behaviour: none; these operations cannot fail.
//
//===----------------------------------------------------------------------===//
#ifndef FLEET_RUNTIME_HAL_REF_H
#define FLEET_RUNTIME_HAL_REF_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

namespace fleet::runtime::hal {

class RefCounted {
public:
  RefCounted(const RefCounted &) = delete;
  RefCounted &operator=(const RefCounted &) = delete;

  void retain() const noexcept {
    refCount_.fetch_add(1, std::memory_order_relaxed);
  }
  void release() const noexcept {
    if (refCount_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }
  /// For tests and debugging only; racy by nature.
  uint32_t refCount() const noexcept {
    return refCount_.load(std::memory_order_relaxed);
  }

protected:
  RefCounted() = default;
  virtual ~RefCounted() = default;

private:
  mutable std::atomic<uint32_t> refCount_{1};
};

template <typename T> class Ref {
public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  /// Retains `object` (a borrowed pointer becomes an owned one).
  explicit Ref(T *object) : object_(object) {
    if (object_)
      object_->retain();
  }
  /// Takes over the reference `object` was born with.
  static Ref adopt(T *object) {
    Ref result;
    result.object_ = object;
    return result;
  }
  Ref(const Ref &other) : Ref(other.object_) {}
  Ref(Ref &&other) noexcept : object_(other.object_) { other.object_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U *, T *>>>
  Ref(const Ref<U> &other) : Ref(static_cast<T *>(other.get())) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U *, T *>>>
  Ref(Ref<U> &&other) noexcept : object_(other.detach()) {}
  Ref &operator=(Ref other) noexcept {
    std::swap(object_, other.object_);
    return *this;
  }
  ~Ref() {
    if (object_)
      object_->release();
  }

  T *get() const { return object_; }
  T *operator->() const { return object_; }
  T &operator*() const { return *object_; }
  explicit operator bool() const { return object_ != nullptr; }
  void reset() { Ref().swap(*this); }
  void swap(Ref &other) noexcept { std::swap(object_, other.object_); }
  /// Gives up ownership without releasing.
  T *detach() {
    T *object = object_;
    object_ = nullptr;
    return object;
  }

  friend bool operator==(const Ref &a, const Ref &b) {
    return a.object_ == b.object_;
  }
  friend bool operator!=(const Ref &a, const Ref &b) {
    return a.object_ != b.object_;
  }

private:
  T *object_ = nullptr;
};

template <typename T, typename... Args> Ref<T> makeRef(Args &&...args) {
  return Ref<T>::adopt(new T(std::forward<Args>(args)...));
}

/// A borrowed view of contiguous elements (C++17 has no std::span).
/// Like llvm::ArrayRef, a Span built from an initializer list must not
/// outlive the full expression.
template <typename T> class Span {
public:
  using value_type = std::remove_cv_t<T>;
  Span() = default;
  Span(T *data, size_t size) : data_(data), size_(size) {}
  template <size_t N> Span(T (&array)[N]) : data_(array), size_(N) {}
  template <typename U = T, typename = std::enable_if_t<std::is_const_v<U>>>
  Span(std::initializer_list<value_type> list)
      : data_(list.begin()), size_(list.size()) {}
  template <typename U = T, typename = std::enable_if_t<std::is_const_v<U>>>
  Span(const std::vector<value_type> &vector)
      : data_(vector.data()), size_(vector.size()) {}
  Span(std::vector<value_type> &vector)
      : data_(vector.data()), size_(vector.size()) {}

  T *data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T *begin() const { return data_; }
  T *end() const { return data_ + size_; }
  T &operator[](size_t i) const { return data_[i]; }

private:
  T *data_ = nullptr;
  size_t size_ = 0;
};

} // namespace fleet::runtime::hal

#endif // FLEET_RUNTIME_HAL_REF_H
