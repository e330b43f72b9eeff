// DeviceArena: a block of device memory its owner lends for a while, handed out in
// aligned pieces (DeviceBuffer's lent form). Nothing goes back piece by piece: the owner
// takes the whole block back once the pieces' users are done. ProofMsms's lane beside H
// lives in one: the a vector's memory, dead from the moment h is made until the next
// partition's a goes up.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace zkbatch::cuda {

class DeviceArena {
public:
    // Every piece starts on this boundary, as cudaMalloc's do: the kernels' vector loads
    // and CUB's scratch rely on it.
    static constexpr uint64_t kAlignment = 256;
    static constexpr uint64_t padded(uint64_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

    // `bytes` of device memory at `base` (kAlignment-aligned).
    DeviceArena(void* base, uint64_t bytes) : base_(static_cast<unsigned char*>(base)), bytes_(bytes) {
        if (reinterpret_cast<uintptr_t>(base) % kAlignment != 0) {
            throw std::invalid_argument("DeviceArena: a block that is not 256-byte aligned");
        }
    }

    // The next `bytes` (null for none). Throws std::length_error where they do not fit:
    // whoever sized the block counted wrong.
    void* take(uint64_t bytes) {
        if (bytes == 0) return nullptr;
        const uint64_t piece = padded(bytes);
        if (piece > bytes_ - used_) {
            throw std::length_error("DeviceArena: " + std::to_string(bytes) + " bytes asked of a block of " +
                                    std::to_string(bytes_) + " with " + std::to_string(bytes_ - used_) + " left");
        }
        void* const data = base_ + used_;
        used_ += piece;
        return data;
    }
    uint64_t used_bytes() const { return used_; }

private:
    unsigned char* base_;
    uint64_t bytes_;
    uint64_t used_ = 0;
};

}  // namespace zkbatch::cuda
