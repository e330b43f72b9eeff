// Prove requests for the plugin ABI, built field by field: the C structs grow with
// each ABI version, and -Wmissing-field-initializers refuses positional initializers
// that stop short.
#pragma once

#include "core/plugin/abi.h"

#include <cstdint>

namespace zkbatch::plugin {

// The quotient workload: h alone (a zeroed request is one).
inline zkb_prove_request quotient_request(uint64_t partition_index, uint32_t log_n, bool h_to_host,
                                          const zkb_host_buffers* buffers) {
    zkb_prove_request request{};
    request.partition_index = partition_index;
    request.log_n = log_n;
    request.h_to_host = h_to_host ? 1 : 0;
    request.buffers = buffers;
    request.workload = ZKB_WORKLOAD_QUOTIENT;
    return request;
}

}  // namespace zkbatch::plugin
