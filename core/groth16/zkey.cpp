// snarkjs's .zkey and .wtns readers (core/groth16/zkey.hpp).
#include "core/groth16/zkey.hpp"

#include "core/groth16/key_file.hpp"
#include "core/util/input_file.hpp"
#include "core/util/parallel.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace zkbatch::groth16 {

namespace {

constexpr uint64_t kCoefficientBytes = 4 + 4 + 4 + 32;  // both curves' r take 32 bytes

const char* section_name(uint32_t id) {
    switch (id) {
        case 1: return "header";
        case 2: return "Groth16 header";
        case 3: return "IC";
        case 4: return "coefficients";
        case 5: return "A";
        case 6: return "B1";
        case 7: return "B2";
        case 8: return "C";
        case 9: return "H";
        case 10: return "contributions";
    }
    return "unknown";
}

// A little-endian integer's bytes as big-endian hex (how primes are written).
std::string hex_of(const uint8_t* bytes, size_t count) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = count; i-- > 0;) {
        out.push_back(kDigits[bytes[i] >> 4]);
        out.push_back(kDigits[bytes[i] & 15]);
    }
    const size_t first = out.find_first_not_of('0');
    return first == std::string::npos ? "0" : out.substr(first);
}

// A field's modulus as hex_of spells it.
template <class F>
std::string modulus_hex() {
    const auto modulus = F::modulus();
    uint8_t bytes[F::kBytes];
    std::memcpy(bytes, modulus.limbs, sizeof bytes);  // little-endian host
    return hex_of(bytes, sizeof bytes);
}

// The curve whose base field's prime q is, if either.
std::optional<curve::CurveId> curve_of_q(const std::string& q_hex) {
    for (const curve::CurveId id : {curve::CurveId::bls12_381, curve::CurveId::bn254})
        if (curve::with_curve(id, [](auto c) { return modulus_hex<typename decltype(c)::Fq>(); }) == q_hex) return id;
    return std::nullopt;
}

// A curve as zkbatch's messages name it: "BLS12-381", "BN254 (snarkjs's bn128)".
std::string curve_title(curve::CurveId id) {
    return id == curve::CurveId::bn254 ? "BN254 (snarkjs's bn128)" : "BLS12-381";
}

// A read-only mapping of a whole file.
class MappedFile {
public:
    MappedFile(const std::filesystem::path& path, const char* kind) {
        std::string why;
        const int fd = util::open_input_file(path, why);
        if (fd < 0) throw ZkeyError(path.string() + ": cannot open the " + kind + ": " + why);
        struct stat status {};
        if (::fstat(fd, &status) != 0) {
            ::close(fd);
            throw ZkeyError(path.string() + ": cannot read the " + kind + ": " + std::strerror(errno));
        }
        bytes_ = static_cast<uint64_t>(status.st_size);
        const uint64_t memory = static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
        if (bytes_ > memory) {
            ::close(fd);
            char text[160];
            std::snprintf(text, sizeof text, ": the %s is %.1f GB, more than this machine's %.1f GB of memory", kind,
                          static_cast<double>(bytes_) / 1e9, static_cast<double>(memory) / 1e9);
            throw ZkeyError(path.string() + text);
        }
        if (bytes_ > 0) {
            base_ = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
            if (base_ == MAP_FAILED) {
                const int map_errno = errno;
                ::close(fd);
                throw ZkeyError(path.string() + ": cannot map the " + kind + " into memory: " + std::strerror(map_errno));
            }
        }
        ::close(fd);
    }
    ~MappedFile() {
        if (base_ != nullptr && base_ != MAP_FAILED) ::munmap(base_, bytes_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(base_), bytes_}; }

private:
    void* base_ = nullptr;
    uint64_t bytes_ = 0;
};

// The sections of a snarkjs binary file (magic, u32 version, u32 count, then
// u32 id, u64 length, payload per section), each id at most once.
class BinFile {
public:
    BinFile(std::span<const uint8_t> bytes, std::string name, const char* magic, uint32_t version, const char* kind)
        : bytes_(bytes), name_(std::move(name)), kind_(kind) {
        if (bytes.size() < 12) fail_file("truncated: " + std::to_string(bytes.size()) + " bytes, less than a header");
        const std::string found(reinterpret_cast<const char*>(bytes.data()), 4);
        if (found != magic) {
            for (const char* other : {"zkey", "wtns", "ptau", "r1cs"})
                if (found == other) fail_file(std::string("this is a .") + other + " file, not a ." + magic);
            fail_file(std::string("not a .") + magic + " file (it does not start with \"" + magic + "\")");
        }
        if (u32(4) != version)
            fail_file("version " + std::to_string(u32(4)) + "; zkbatch reads version " + std::to_string(version));
        const uint32_t count = u32(8);
        uint64_t offset = 12;
        for (uint32_t i = 0; i < count; ++i) {
            if (offset + 12 > bytes.size())
                fail_file("truncated: it ends at byte " + std::to_string(bytes.size()) + ", before section " +
                          std::to_string(i + 1) + " of the " + std::to_string(count) + " its header lists");
            const uint32_t id = u32(offset);
            uint64_t length;
            std::memcpy(&length, bytes.data() + offset + 4, 8);
            offset += 12;
            if (length > bytes.size() - offset)
                fail_file("truncated: section " + std::to_string(id) + " (" + section_label(id) + ") at byte " +
                          std::to_string(offset) + " claims " + std::to_string(length) + " bytes, " +
                          std::to_string(bytes.size() - offset) + " remain");
            if (!sections_.emplace(id, std::pair{offset, length}).second)
                fail_file("section " + std::to_string(id) + " appears twice");
            offset += length;
        }
        if (offset != bytes.size())
            fail_file(std::to_string(bytes.size() - offset) + " bytes after its last section (from byte " +
                      std::to_string(offset) + "): the file is corrupted");
    }

    // The section's payload; `expected_bytes` (when set) must be its length.
    const uint8_t* section(uint32_t id, std::optional<uint64_t> expected_bytes = std::nullopt) const {
        const auto found = sections_.find(id);
        if (found == sections_.end()) fail(id, "missing");
        if (expected_bytes && found->second.second != *expected_bytes)
            fail(id, std::to_string(found->second.second) + " bytes where " + std::to_string(*expected_bytes) +
                         " are expected");
        return bytes_.data() + found->second.first;
    }
    uint64_t section_bytes(uint32_t id) const {
        section(id);
        return sections_.at(id).second;
    }
    uint32_t u32(uint64_t offset) const {
        uint32_t value;
        std::memcpy(&value, bytes_.data() + offset, 4);
        return value;
    }
    [[noreturn]] void fail(uint32_t id, const std::string& what) const {
        throw ZkeyError(name_ + ": section " + std::to_string(id) + " (" + section_label(id) + "): " + what);
    }
    [[noreturn]] void fail_file(const std::string& what) const { throw ZkeyError(name_ + ": " + what); }

private:
    std::string section_label(uint32_t id) const {
        return kind_ == std::string("witness") ? (id == 1 ? "header" : id == 2 ? "values" : "unknown") : section_name(id);
    }
    std::span<const uint8_t> bytes_;
    std::string name_;
    const char* kind_;
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> sections_;
};

// What a .zkey's spans point into: the file's bytes, and aligned copies of the
// sections that were not aligned there.
template <class Curve>
struct ZkeyPoints {
    std::shared_ptr<const void> file;
    std::vector<std::vector<curve::G1Affine<Curve>>> g1_copies;
    std::vector<std::vector<curve::G2Affine<Curve>>> g2_copies;
    template <class Point>
    std::vector<Point>& copy(uint64_t count) {
        if constexpr (std::is_same_v<Point, curve::G1Affine<Curve>>) return g1_copies.emplace_back(count);
        else return g2_copies.emplace_back(count);
    }
};

uint32_t read_u32(const uint8_t* bytes) {
    uint32_t value;
    std::memcpy(&value, bytes, 4);
    return value;
}

// A field element as stored (48 or 32 little-endian bytes) is below the modulus; an
// element of Fp2, both halves.
template <class F>
bool reduced(const F& value) {
    if constexpr (requires { typename F::Fp; }) {
        return reduced(value.c0) && reduced(value.c1);
    } else {
        uint64_t limbs[F::kLimbs];
        std::memcpy(limbs, &value, sizeof limbs);
        return F::is_canonical(limbs);
    }
}

// Checks every point of a section on `threads` threads; the first bad one is named.
template <class Curve, class Affine>
void check_section_points(const BinFile& file, uint32_t id, const Affine* points, uint64_t count, unsigned threads) {
    std::atomic<uint64_t> first_bad{UINT64_MAX};
    std::atomic<int> why{0};  // 1 not reduced, 2 not on the curve, 3 not in the subgroup
    util::parallel_for(0, count, threads, [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end && i < first_bad.load(std::memory_order_relaxed); ++i) {
            const Affine& point = points[i];
            if (point.is_infinity()) continue;
            const int problem = !reduced(point.x) || !reduced(point.y) ? 1
                                : !point.is_on_curve()                 ? 2
                                : !Curve::is_in_subgroup(point)        ? 3
                                                                       : 0;
            if (problem == 0) continue;
            uint64_t seen = first_bad.load();
            while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
            }
            if (first_bad.load() == i) why = problem;
            return;
        }
    });
    if (first_bad.load() == UINT64_MAX) return;
    static constexpr const char* kWhy[] = {"", "has a coordinate that is not a field element (>= q)",
                                           "is not on the curve", "is not in the prime-order subgroup"};
    file.fail(id, "point " + std::to_string(first_bad.load()) + " " + kWhy[why.load()] + ": the file is corrupted");
}

}  // namespace

template <class Curve>
void generic::ZkeyCircuit<Curve>::synthesize(const Fr* witness, Fr* a, Fr* b, Fr* c, unsigned threads) const {
    const uint64_t n = uint64_t{1} << log_n;
    // Rows are split over threads by row ranges; terms are sorted by row, so each
    // thread finds its terms by binary search and no two threads write one row.
    util::parallel_for(0, n, threads, [&](size_t begin, size_t end) {
        for (auto [terms, out] : {std::pair{&a_terms, a}, {&b_terms, b}}) {
            std::fill(out + begin, out + end, Fr::zero());
            auto first = std::lower_bound(terms->begin(), terms->end(), begin,
                                          [](const ZkeyTerm<Fr>& term, size_t row) { return term.row < row; });
            for (auto term = first; term != terms->end() && term->row < end; ++term)
                out[term->row] += term->coefficient * witness[term->signal];
        }
        for (size_t row = begin; row < end; ++row) c[row] = a[row] * b[row];
    });
}

template <class Curve>
generic::Zkey<Curve> read_zkey(const std::filesystem::path& path, unsigned threads, bool check_points) {
    return read_zkey<Curve>(path, threads, [&](std::span<const uint8_t>) { return check_points; });
}

template <class Curve>
generic::Zkey<Curve> read_zkey(const std::filesystem::path& path, unsigned threads,
                               const std::function<bool(std::span<const uint8_t> file)>& check_points) {
    auto mapped = std::make_shared<MappedFile>(path, "proving key");
    const std::span<const uint8_t> bytes = mapped->bytes();
    const bool check = check_points(bytes);
    return parse_zkey<Curve>(bytes, path.string(), threads, std::move(mapped), check);
}

namespace {

// Sections 1 and 2 up to the points: the protocol, the curve, the sizes. Leaves `rest`
// at section 2's first point.
ZkeyHeader parse_header(const BinFile& file, const uint8_t*& rest,
                        std::optional<curve::CurveId> expected = std::nullopt) {
    const uint8_t* protocol = file.section(1, 4);
    if (read_u32(protocol) != 1)
        file.fail(1, "protocol " + std::to_string(read_u32(protocol)) + " is not Groth16 (1): zkbatch proves Groth16");

    // Section 2: n8q, q, n8r, r, nVars, nPublic, domainSize, alpha1 beta1 beta2 gamma2 delta1 delta2.
    const uint64_t header_bytes = file.section_bytes(2);
    const uint8_t* header = file.section(2);
    if (header_bytes < 4) file.fail(2, "truncated");
    const uint32_t n8q = read_u32(header);
    if (header_bytes < 4 + uint64_t{n8q} + 4) file.fail(2, "truncated");
    const std::string q_hex = hex_of(header + 4, n8q);
    const std::optional<curve::CurveId> curve = curve_of_q(q_hex);
    if (!curve)
        file.fail(2, "the curve is an unknown curve (q = 0x" + q_hex +
                         "): zkbatch proves BN254 (circom's default, snarkjs's bn128) and BLS12-381 (`circom -p "
                         "bls12381`); set the circuit up with a ceremony of one of them");
    if (expected && *curve != *expected)
        file.fail(2, "the curve is " + curve_title(*curve) + ", where a " + curve_title(*expected) +
                         " key is expected");
    // q may be written with leading zero bytes, and every offset below assumes the
    // curve's own length. From here on the layout is fixed, and its length is checked
    // before any of it is read.
    curve::with_curve(*curve, [&](auto c) {
        using Curve = decltype(c);
        constexpr uint32_t q_bytes = Curve::Fq::kBytes, r_bytes = Curve::Fr::kBytes;
        if (n8q != q_bytes)
            file.fail(2, "q is written in " + std::to_string(n8q) + " bytes where " + curve_title(*curve) +
                             " takes " + std::to_string(q_bytes));
        const uint64_t expected_header = 4 + q_bytes + 4 + r_bytes + 12 + 3 * sizeof(curve::G1Affine<Curve>) +
                                         3 * sizeof(curve::G2Affine<Curve>);
        if (header_bytes != expected_header)
            file.fail(2, std::to_string(header_bytes) + " bytes where " + std::to_string(expected_header) +
                             " are expected");
        rest = header + 4 + n8q;
        if (read_u32(rest) != r_bytes || hex_of(rest + 4, r_bytes) != modulus_hex<typename Curve::Fr>())
            file.fail(2, "its scalar field is not " + curve_title(*curve) + "'s r");
        rest += 4 + r_bytes;
    });
    const uint32_t num_variables = read_u32(rest), num_public = read_u32(rest + 4), domain_size = read_u32(rest + 8);
    rest += 12;
    if (domain_size < 2 || (domain_size & (domain_size - 1)) != 0 || domain_size > (1u << 28))
        file.fail(2, "domain size " + std::to_string(domain_size) + " is not a power of two in 2..2^28");
    if (num_variables < uint64_t{num_public} + 1)
        file.fail(2, std::to_string(num_variables) + " variables cannot hold " + std::to_string(num_public) +
                         " public signals and the constant");
    return {*curve, static_cast<uint32_t>(__builtin_ctz(domain_size)), num_variables, num_public};
}

}  // namespace

ZkeyHeader read_zkey_header(const std::filesystem::path& path) {
    const MappedFile mapped(path, "proving key");
    return parse_zkey_header(mapped.bytes(), path.string());
}

ZkeyHeader parse_zkey_header(std::span<const uint8_t> bytes, const std::string& name) {
    const BinFile file(bytes, name, "zkey", 1, "proving key");
    const uint8_t* rest = nullptr;
    return parse_header(file, rest);
}

template <class Curve>
generic::Zkey<Curve> parse_zkey(std::span<const uint8_t> bytes, const std::string& name, unsigned threads,
                                std::shared_ptr<const void> storage, bool check_points) {
    using Fr = typename Curve::Fr;
    using G1Affine = curve::G1Affine<Curve>;
    using G2Affine = curve::G2Affine<Curve>;
    const BinFile file(bytes, name, "zkey", 1, "proving key");
    const uint8_t* rest = nullptr;
    const ZkeyHeader header = parse_header(file, rest, Curve::kId);
    const uint32_t num_variables = static_cast<uint32_t>(header.num_variables);
    const uint32_t num_public = static_cast<uint32_t>(header.num_public);
    const uint32_t domain_size = 1u << header.log_n;

    generic::Zkey<Curve> zkey;
    zkey.file_bytes = bytes.size();
    zkey.file_digest = bytes_digest(bytes);
    generic::ProvingKey<Curve>& key = zkey.key;
    key.log_n = header.log_n;
    key.num_variables = num_variables;
    key.num_public = num_public;
    key.h_convention = HConvention::odd_coset;
    auto take = [&rest](auto& point) {
        std::memcpy(&point, rest, sizeof point);
        rest += sizeof point;
    };
    take(key.vk.alpha_g1), take(key.beta_g1), take(key.vk.beta_g2), take(key.vk.gamma_g2), take(key.delta_g1),
        take(key.vk.delta_g2);
    const G1Affine header_g1[3] = {key.vk.alpha_g1, key.beta_g1, key.delta_g1};
    const G2Affine header_g2[3] = {key.vk.beta_g2, key.vk.gamma_g2, key.vk.delta_g2};
    check_section_points<Curve>(file, 2, header_g1, 3, 1);
    check_section_points<Curve>(file, 2, header_g2, 3, 1);
    if (const char* point = fixed_point_at_infinity(key))
        file.fail(2, std::string(point) + " is the point at infinity: no ceremony makes such a key");

    // snarkjs aligns sections to nothing: in its files the A, B2 and H points start 4
    // bytes past an 8-byte boundary. A section that is not aligned for ec::Affine is
    // copied (once, into memory the key owns); an aligned one is used where it lies.
    auto points_storage = std::make_shared<ZkeyPoints<Curve>>();
    points_storage->file = std::move(storage);
    auto section_points = [&](uint32_t id, uint64_t count, auto* kind) {
        using Point = std::remove_pointer_t<decltype(kind)>;
        const uint8_t* raw = file.section(id, count * sizeof(Point));
        const Point* points = reinterpret_cast<const Point*>(raw);
        if (reinterpret_cast<uintptr_t>(raw) % alignof(Point) != 0) {
            auto& copy = points_storage->template copy<Point>(count);
            if (count > 0) std::memcpy(copy.data(), raw, count * sizeof(Point));
            points = copy.data();
        }
        if (check_points) check_section_points<Curve>(file, id, points, count, threads);
        return std::span<const Point>(points, count);
    };
    const auto ic = section_points(3, uint64_t{num_public} + 1, static_cast<G1Affine*>(nullptr));
    key.vk.ic.assign(ic.begin(), ic.end());
    key.a_query = section_points(5, num_variables, static_cast<G1Affine*>(nullptr));
    key.b_g1_query = section_points(6, num_variables, static_cast<G1Affine*>(nullptr));
    key.b_g2_query = section_points(7, num_variables, static_cast<G2Affine*>(nullptr));
    key.l_query = section_points(8, uint64_t{num_variables} - num_public - 1, static_cast<G1Affine*>(nullptr));
    key.h_query = section_points(9, domain_size, static_cast<G1Affine*>(nullptr));
    key.check_sizes();

    // Section 4: u32 count, then (u32 matrix, u32 row, u32 signal, 32-byte value * R^2 mod r).
    const uint64_t coefficient_section = file.section_bytes(4);
    const uint8_t* coefficients = file.section(4);
    if (coefficient_section < 4) file.fail(4, "truncated");
    const uint32_t count = read_u32(coefficients);
    if (coefficient_section != 4 + uint64_t{count} * kCoefficientBytes)
        file.fail(4, std::to_string(coefficient_section) + " bytes for " + std::to_string(count) +
                         " coefficients, which take " + std::to_string(4 + uint64_t{count} * kCoefficientBytes));
    generic::ZkeyCircuit<Curve>& circuit = zkey.circuit;
    circuit.log_n = key.log_n;
    circuit.num_variables = num_variables;
    circuit.num_public = num_public;
    const Fr raw_one = Fr::from_representation({{1}});
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t* entry = coefficients + 4 + uint64_t{i} * kCoefficientBytes;
        const uint32_t matrix = read_u32(entry), row = read_u32(entry + 4), signal = read_u32(entry + 8);
        Fr stored;
        std::memcpy(&stored, entry + 12, sizeof stored);
        if (matrix > 1 || row >= domain_size || signal >= num_variables || !Fr::is_canonical(stored.limbs))
            file.fail(4, "coefficient " + std::to_string(i) + " is out of range (matrix " + std::to_string(matrix) +
                             ", row " + std::to_string(row) + ", signal " + std::to_string(signal) + ")");
        // value * R^2 read as a Montgomery form is value * R; one Montgomery product
        // with the raw integer 1 leaves value * R, the Montgomery form of value.
        (matrix == 0 ? circuit.a_terms : circuit.b_terms).push_back({row, signal, stored * raw_one});
    }
    for (auto* terms : {&circuit.a_terms, &circuit.b_terms})
        std::stable_sort(terms->begin(), terms->end(),
                         [](const generic::ZkeyTerm<Fr>& x, const generic::ZkeyTerm<Fr>& y) { return x.row < y.row; });
    // BLS12-381's descriptions name no curve, as before there were two.
    const std::string curve_line =
        Curve::kId == curve::CurveId::bls12_381 ? "" : "curve=" + std::string(curve::name(Curve::kId)) + "\n";
    circuit.description_ = "circuit=zkey\n" + curve_line + "log_n=" + std::to_string(key.log_n) + "\nvariables=" +
                           std::to_string(num_variables) + "\npublic=" + std::to_string(num_public) +
                           "\ncoefficients=" + std::to_string(count) + "\ncoefficients_digest=" +
                           description_digest(std::string(reinterpret_cast<const char*>(coefficients),
                                                          coefficient_section)) +
                           "\n";
    key.storage = std::move(points_storage);
    return zkey;
}

template <class Fr>
std::vector<Fr> read_wtns(const std::filesystem::path& path, uint64_t num_variables, std::string* digest) {
    const MappedFile mapped(path, "witness");
    if (digest) *digest = bytes_digest(mapped.bytes());
    return parse_wtns<Fr>(mapped.bytes(), path.string(), num_variables);
}

namespace {

// What messages call the scalar field Fr is.
template <class Fr>
std::string field_title() {
    return std::is_same_v<Fr, curve::Bn254::Fr> ? "BN254's scalar field" : "BLS12-381's scalar field";
}

// A witness file's header (section 1) and the place of its values: the checks that
// need none of the values but the first.
template <class Fr>
const uint8_t* wtns_values(const BinFile& file, uint64_t num_variables) {
    // Section 1: u32 n8, the prime (n8 bytes), u32 nWitness. Section 2: the values.
    const uint64_t header_bytes = file.section_bytes(1);
    const uint8_t* header = file.section(1);
    if (header_bytes < 4) file.fail(1, "truncated");
    const uint32_t n8 = read_u32(header);
    if (header_bytes != 4 + uint64_t{n8} + 4) file.fail(1, "its length does not match its field size");
    const std::string prime = hex_of(header + 4, n8);
    if (prime != modulus_hex<Fr>()) {
        std::string field = "the field of 0x" + prime;
        for (const curve::CurveId id : {curve::CurveId::bls12_381, curve::CurveId::bn254})
            curve::with_curve(id, [&](auto c) {
                using Other = typename decltype(c)::Fr;
                if (prime == modulus_hex<Other>()) field = field_title<Other>();
            });
        file.fail(1, "the witness is over " + field + ", where the key's circuit is over " + field_title<Fr>() +
                         ": compute the witness with the circuit the key was set up for (circom's -p flag picks the "
                         "curve)");
    }
    if (n8 != Fr::kBytes)
        file.fail(1, "its values take " + std::to_string(n8) + " bytes where " + field_title<Fr>() + "'s take " +
                         std::to_string(Fr::kBytes));
    const uint32_t count = read_u32(header + 4 + n8);
    if (count != num_variables)
        file.fail(1, std::to_string(count) + " values, but the circuit's key has " + std::to_string(num_variables) +
                         " variables: this witness is for another circuit");
    const uint8_t* values = file.section(2, uint64_t{count} * Fr::kBytes);
    Fr first;
    if (count == 0 || !Fr::try_from_canonical_le_bytes(values, first) || first != Fr::one())
        file.fail(2, "w[0] is not 1: a circom witness starts with the constant signal 1");
    return values;
}

// Each of the values, read into `out` when it is not null; the first that is not below r
// fails the file.
template <class Fr>
void read_wtns_values(const BinFile& file, const uint8_t* values, uint64_t count, Fr* out) {
    Fr value;
    for (uint64_t i = 0; i < count; ++i)
        if (!Fr::try_from_canonical_le_bytes(values + i * Fr::kBytes, out != nullptr ? out[i] : value))
            file.fail(2, "value " + std::to_string(i) + " is not below r: the file is corrupted");
}

}  // namespace

template <class Fr>
std::string check_wtns(const std::filesystem::path& path, uint64_t num_variables) {
    const MappedFile mapped(path, "witness");
    const BinFile file(mapped.bytes(), path.string(), "wtns", 2, "witness");
    read_wtns_values<Fr>(file, wtns_values<Fr>(file, num_variables), num_variables, nullptr);
    return bytes_digest(mapped.bytes());
}

template <class Fr>
std::vector<Fr> parse_wtns(std::span<const uint8_t> bytes, const std::string& name, uint64_t num_variables) {
    const BinFile file(bytes, name, "wtns", 2, "witness");
    std::vector<Fr> witness(num_variables);
    read_wtns_values(file, wtns_values<Fr>(file, num_variables), num_variables, witness.data());
    return witness;
}

#define ZKB_ZKEY_INSTANTIATE(Curve)                                                                                \
    template struct generic::ZkeyCircuit<Curve>;                                                                \
    template generic::Zkey<Curve> read_zkey<Curve>(const std::filesystem::path&, unsigned, bool);               \
    template generic::Zkey<Curve> read_zkey<Curve>(const std::filesystem::path&, unsigned,                      \
                                                   const std::function<bool(std::span<const uint8_t>)>&);       \
    template generic::Zkey<Curve> parse_zkey<Curve>(std::span<const uint8_t>, const std::string&, unsigned,     \
                                                    std::shared_ptr<const void>, bool);                         \
    template std::vector<Curve::Fr> read_wtns<Curve::Fr>(const std::filesystem::path&, uint64_t, std::string*); \
    template std::vector<Curve::Fr> parse_wtns<Curve::Fr>(std::span<const uint8_t>, const std::string&, uint64_t); \
    template std::string check_wtns<Curve::Fr>(const std::filesystem::path&, uint64_t);
ZKB_ZKEY_INSTANTIATE(curve::Bls12_381)
ZKB_ZKEY_INSTANTIATE(curve::Bn254)
#undef ZKB_ZKEY_INSTANTIATE

}  // namespace zkbatch::groth16
