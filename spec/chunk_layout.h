#pragma once
// How a buffer of `count` elements is cut into `parts` chunks when parts does not divide count:
// the first count % parts chunks get one extra element. Every algorithm that splits a buffer uses
// this one rule, so the sender of a chunk and its receiver always agree on where it lies.

#include <algorithm>
#include <cstddef>

namespace ringbench::spec {

class ChunkLayout {
 public:
  ChunkLayout(size_t count, int parts)
      : parts_(parts), base_(count / static_cast<size_t>(parts)), extra_(count % static_cast<size_t>(parts)) {}
  int parts() const { return parts_; }
  // First element of chunk i, and its element count. Chunk indices wrap modulo parts.
  size_t offset(int i) const {
    size_t k = wrap(i);
    return k * base_ + std::min(k, extra_);
  }
  size_t size(int i) const { return base_ + (wrap(i) < extra_ ? 1 : 0); }

 private:
  size_t wrap(int i) const { return static_cast<size_t>(((i % parts_) + parts_) % parts_); }
  int parts_;
  size_t base_;
  size_t extra_;
};

}  // namespace ringbench::spec
