// SHA-256 of bytes in memory, as 64 lowercase hex digits (OpenSSL's EVP): what the
// runner names a manifest's text and a checked .zkey by, where a digest must hold
// against someone who chose the bytes.
#pragma once

#include <openssl/evp.h>

#include <array>
#include <stdexcept>
#include <string>
#include <string_view>

namespace zkbatch {

inline std::string sha256_hex(std::string_view bytes) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int length = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1)
        throw std::runtime_error("SHA-256 failed (OpenSSL EVP_Digest)");
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned i = 0; i < length; ++i) {
        hex += kHex[digest[i] >> 4];
        hex += kHex[digest[i] & 15];
    }
    return hex;
}

}  // namespace zkbatch
