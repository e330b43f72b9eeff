// zkbatch's key file (core/groth16/key_file.hpp).
#include "core/groth16/key_file.hpp"

#include "core/curve/curves.hpp"
#include "core/util/input_file.hpp"
#include "core/util/output_file.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace zkbatch::groth16 {

namespace {

static_assert(std::endian::native == std::endian::little, "key files are little-endian, as the points in memory");

constexpr char kMagic[8] = {'Z', 'K', 'B', 'K', 'E', 'Y', '\r', '\n'};
constexpr uint64_t kHeaderBytes = 4096;
constexpr uint64_t kSectionAlignment = 4096;

enum Section { kVk, kA, kBG1, kBG2, kL, kH, kSectionCount };
constexpr const char* kSectionNames[kSectionCount] = {"vk", "a", "b_g1", "b_g2", "l", "h"};

struct SectionEntry {
    uint64_t offset, count;
};

struct RawHeader {
    char magic[8];
    uint32_t format_version, curve, h_convention, log_n;
    uint64_t num_variables, num_public;
    SectionEntry sections[kSectionCount];
    uint8_t circuit_digest[16], setup_digest[16], vk_digest[16], points_digest[16];
    uint32_t circuit_description_bytes, setup_description_bytes;
    char circuit_description[2048];
    char setup_description[1024];
    uint8_t reserved[800];
    uint8_t header_digest[16];  // of every byte above
};
static_assert(sizeof(RawHeader) == kHeaderBytes, "the header is one 4096-byte page");

// The layout every key of a shape has: the loader recomputes it and demands equality.
struct Layout {
    SectionEntry sections[kSectionCount];
    uint64_t section_bytes[kSectionCount];
    uint64_t file_bytes;
};

uint64_t align_up(uint64_t value) { return (value + kSectionAlignment - 1) / kSectionAlignment * kSectionAlignment; }

Layout layout_for(curve::CurveId curve, uint32_t log_n, uint64_t m, uint64_t l, HConvention convention) {
    const auto [g1_bytes, g2_bytes] = curve::with_curve(curve, [](auto c) {
        using Curve = decltype(c);
        return std::pair<uint64_t, uint64_t>{sizeof(curve::G1Affine<Curve>), sizeof(curve::G2Affine<Curve>)};
    });
    const uint64_t n = uint64_t{1} << log_n;
    const uint64_t counts[kSectionCount] = {l + 1, m, m, m, m - l - 1,
                                            convention == HConvention::coefficients ? n - 1 : n};
    Layout layout{};
    uint64_t offset = kHeaderBytes;
    for (int s = 0; s < kSectionCount; ++s) {
        const uint64_t element = s == kBG2 ? g2_bytes : g1_bytes;
        layout.section_bytes[s] = counts[s] * element + (s == kVk ? 3 * g1_bytes + 3 * g2_bytes : 0);
        layout.sections[s] = {offset, counts[s]};
        offset = align_up(offset + layout.section_bytes[s]);
    }
    layout.file_bytes = offset;
    return layout;
}

std::string hex(const uint8_t digest[16]) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 16; ++i) {
        out.push_back(kDigits[digest[i] >> 4]);
        out.push_back(kDigits[digest[i] & 15]);
    }
    return out;
}

void unhex(const std::string& text, uint8_t digest[16]) {
    auto nibble = [](char c) { return static_cast<uint8_t>(c <= '9' ? c - '0' : c - 'a' + 10); };
    for (int i = 0; i < 16; ++i) digest[i] = static_cast<uint8_t>(nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]));
}

void digest_into(const void* data, size_t bytes, uint8_t out[16]) {
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, bytes));
    std::memcpy(out, canonical.digest, 16);
}

// Exact bytes, and in the unit that reads best: a small key's "0.00 GB" said nothing.
std::string size_text(uint64_t bytes) {
    const double value = static_cast<double>(bytes);
    const auto [scale, unit] = value >= 1e9 ? std::pair{1e9, "GB"} : value >= 1e6 ? std::pair{1e6, "MB"} : std::pair{1e3, "kB"};
    char text[64];
    std::snprintf(text, sizeof text, "%llu bytes (%.2f %s)", static_cast<unsigned long long>(bytes), value / scale, unit);
    return text;
}

std::filesystem::path folder_of(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
    throw KeyFileError("key file " + path.string() + ": " + what);
}

// A read-only mapping of a whole file, released with the last key that uses it.
class Mapping {
public:
    Mapping(const std::filesystem::path& path, uint64_t bytes) : bytes_(bytes) {
        std::string why;
        const int fd = util::open_input_file(path, why);
        if (fd < 0) fail(path, "cannot open: " + why);
        base_ = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
        const int map_errno = errno;
        ::close(fd);
        if (base_ == MAP_FAILED) fail(path, std::string("cannot map it into memory: ") + std::strerror(map_errno));
    }
    ~Mapping() { ::munmap(base_, bytes_); }
    Mapping(const Mapping&) = delete;
    Mapping& operator=(const Mapping&) = delete;
    const uint8_t* at(uint64_t offset) const { return static_cast<const uint8_t*>(base_) + offset; }

private:
    void* base_ = nullptr;
    uint64_t bytes_;
};

// Checks a header: `got` bytes of it were read (fewer than 4096 when the file is
// shorter) from a file of `file_bytes` bytes. Returns what it says, and the layout it
// must have, in `info` and `layout`.
void check_header(const std::filesystem::path& path, const RawHeader& header, uint64_t got, uint64_t file_bytes,
                  KeyFileInfo& info, Layout& layout) {
    const std::string remake = "; delete it and run `zkbatch setup MANIFEST` again";
    if (got >= sizeof kMagic && std::memcmp(header.magic, kMagic, sizeof kMagic) != 0)
        fail(path, "not a zkbatch key file (its first bytes are not \"ZKBKEY\")");
    if (got < kHeaderBytes)
        fail(path, "truncated: " + std::to_string(file_bytes) + " bytes, less than its 4096-byte header" + remake);
    uint8_t digest[16];
    digest_into(&header, offsetof(RawHeader, header_digest), digest);
    if (std::memcmp(digest, header.header_digest, 16) != 0) fail(path, "corrupted: its header's digest does not match" + remake);
    if (header.format_version != kKeyFileFormatVersion)
        fail(path, "format version " + std::to_string(header.format_version) + ", this zkbatch reads version " +
                       std::to_string(kKeyFileFormatVersion) + remake);
    const std::optional<curve::CurveId> curve = curve::curve_from_id(header.curve);
    if (!curve)
        fail(path, "curve " + std::to_string(header.curve) + " is neither BLS12-381 (1) nor BN254 (2)" + remake);
    if (header.h_convention != static_cast<uint32_t>(HConvention::coefficients) &&
        header.h_convention != static_cast<uint32_t>(HConvention::odd_coset))
        fail(path, "unknown H convention " + std::to_string(header.h_convention));
    // Each bound before the arithmetic that relies on it: m - l - 1 below, and l + 1 IC points.
    if (header.log_n < 1 || header.log_n > 28 || header.num_variables > (uint64_t{1} << 40) ||
        header.num_public >= header.num_variables ||
        header.circuit_description_bytes > sizeof header.circuit_description ||
        header.setup_description_bytes > sizeof header.setup_description)
        fail(path, "its header describes an impossible key" + remake);
    layout = layout_for(*curve, header.log_n, header.num_variables, header.num_public,
                        static_cast<HConvention>(header.h_convention));
    for (int s = 0; s < kSectionCount; ++s)
        if (header.sections[s].offset != layout.sections[s].offset || header.sections[s].count != layout.sections[s].count)
            fail(path, std::string("section ") + kSectionNames[s] + " is not where a key of this shape has it" + remake);
    if (file_bytes != layout.file_bytes)
        fail(path, (file_bytes < layout.file_bytes ? "truncated: " : "has trailing bytes: ") + std::to_string(file_bytes) +
                       " bytes where the header says " + std::to_string(layout.file_bytes) + remake);

    info.path = path;
    info.file_bytes = file_bytes;
    info.format_version = header.format_version;
    info.curve = *curve;
    info.log_n = header.log_n;
    info.num_variables = header.num_variables;
    info.num_public = header.num_public;
    info.h_convention = static_cast<HConvention>(header.h_convention);
    info.circuit_description.assign(header.circuit_description, header.circuit_description_bytes);
    info.setup_description.assign(header.setup_description, header.setup_description_bytes);
    info.circuit_digest = hex(header.circuit_digest);
    info.setup_digest = hex(header.setup_digest);
    info.points_digest = hex(header.points_digest);
}

// Reads and checks the header; returns it with the layout it must have.
RawHeader read_header(const std::filesystem::path& path, KeyFileInfo& info, Layout& layout) {
    std::string why;
    const int fd = util::open_input_file(path, why);
    if (fd < 0) fail(path, "cannot open: " + why + "; run `zkbatch setup MANIFEST` to make it");
    struct stat status {};
    RawHeader header{};
    const bool stat_ok = ::fstat(fd, &status) == 0;
    const ssize_t got = stat_ok ? ::pread(fd, &header, sizeof header, 0) : -1;
    ::close(fd);
    if (!stat_ok || got < 0) fail(path, std::string("cannot read: ") + std::strerror(errno));
    check_header(path, header, static_cast<uint64_t>(got), static_cast<uint64_t>(status.st_size), info, layout);
    return header;
}

void require_circuit(const KeyFileInfo& info, const std::string& expected) {
    if (expected.empty() || expected == info.circuit_description) return;
    fail(info.path, "made for another circuit (digest " + info.circuit_digest + ", the job's is " +
                        description_digest(expected) + "); run `zkbatch setup MANIFEST` to make the job's key");
}

// Parses the vk section (already digest-checked) and checks its points.
template <class Curve>
void read_vk_section(const std::filesystem::path& path, const uint8_t* bytes, uint64_t num_public,
                     generic::ProvingKey<Curve>& key) {
    auto take = [&bytes](auto& point) {
        std::memcpy(&point, bytes, sizeof point);
        bytes += sizeof point;
    };
    take(key.vk.alpha_g1), take(key.beta_g1), take(key.delta_g1);
    take(key.vk.beta_g2), take(key.vk.gamma_g2), take(key.vk.delta_g2);
    key.vk.ic.resize(num_public + 1);
    for (auto& point : key.vk.ic) take(point);
    auto check = [&path](const auto& point, const char* name) {
        if (!point.is_on_curve() || !Curve::is_in_subgroup(point))
            fail(path, std::string("its ") + name + " is not a point of the " + std::string(curve::name(Curve::kId)) +
                           " subgroup: the file is corrupted");
    };
    check(key.vk.alpha_g1, "[alpha]1"), check(key.beta_g1, "[beta]1"), check(key.delta_g1, "[delta]1");
    check(key.vk.beta_g2, "[beta]2"), check(key.vk.gamma_g2, "[gamma]2"), check(key.vk.delta_g2, "[delta]2");
    for (const auto& point : key.vk.ic) check(point, "IC point");
    if (const char* name = fixed_point_at_infinity(key))
        fail(path, std::string("its ") + name + " is the point at infinity: the file is corrupted");
}

// The vk section's bytes must match their digest in the header.
void check_vk_digest(const std::filesystem::path& path, const std::vector<uint8_t>& bytes, const RawHeader& header) {
    uint8_t digest[16];
    digest_into(bytes.data(), bytes.size(), digest);
    if (std::memcmp(digest, header.vk_digest, 16) != 0)
        fail(path, "corrupted: its verifying key's digest does not match; delete it and run `zkbatch setup MANIFEST` "
                   "again");
}

// Reads the vk section at its offset, checked against its digest.
std::vector<uint8_t> read_vk_bytes(const std::filesystem::path& path, const RawHeader& header, const Layout& layout) {
    std::vector<uint8_t> bytes(layout.section_bytes[kVk]);
    std::string why;
    const int fd = util::open_input_file(path, why);
    const ssize_t got = fd < 0 ? -1 : ::pread(fd, bytes.data(), bytes.size(), static_cast<off_t>(header.sections[kVk].offset));
    if (fd >= 0) ::close(fd);
    if (got != static_cast<ssize_t>(bytes.size())) fail(path, "cannot read its verifying key");
    check_vk_digest(path, bytes, header);
    return bytes;
}

}  // namespace

struct KeyPointsDigest::State {
    Layout layout;
    XXH3_state_t* xxh = nullptr;
    int section = -1;          // the section being added, -1 before the first
    uint64_t position = kHeaderBytes;  // file offset of the next byte digested
    uint64_t section_end = kHeaderBytes;
};

KeyPointsDigest::KeyPointsDigest(curve::CurveId curve, uint32_t log_n, uint64_t num_variables, uint64_t num_public,
                                 HConvention convention)
    : state_(std::make_unique<State>()) {
    state_->layout = layout_for(curve, log_n, num_variables, num_public, convention);
    state_->xxh = XXH3_createState();
    if (state_->xxh == nullptr) throw std::bad_alloc();
    XXH3_128bits_reset(state_->xxh);
}

KeyPointsDigest::~KeyPointsDigest() { XXH3_freeState(state_->xxh); }

namespace {
// Digests `bytes` zeros (alignment gaps).
void add_zeros(XXH3_state_t* xxh, uint64_t bytes) {
    static const std::vector<uint8_t> zeros(kSectionAlignment, 0);
    for (; bytes > 0;) {
        const uint64_t piece = std::min<uint64_t>(bytes, zeros.size());
        XXH3_128bits_update(xxh, zeros.data(), piece);
        bytes -= piece;
    }
}
}  // namespace

void KeyPointsDigest::add(Section section, const void* data, uint64_t bytes) {
    State& s = *state_;
    const int index = static_cast<int>(section);
    if (index != s.section) {  // a new section: the previous one must be complete
        if (index < s.section || s.position != s.section_end)
            throw std::logic_error(std::string("KeyPointsDigest: section ") + kSectionNames[index] +
                                   " out of order, or the one before it incomplete");
        for (int skipped = s.section + 1; skipped < index; ++skipped)
            if (s.layout.section_bytes[skipped] != 0)
                throw std::logic_error(std::string("KeyPointsDigest: section ") + kSectionNames[skipped] + " missing");
        const uint64_t offset = s.layout.sections[index].offset;
        add_zeros(s.xxh, offset - s.position);
        s.section = index;
        s.position = offset;
        s.section_end = offset + s.layout.section_bytes[index];
    }
    if (s.position + bytes > s.section_end)
        throw std::logic_error(std::string("KeyPointsDigest: more bytes than section ") + kSectionNames[index] + " holds");
    XXH3_128bits_update(s.xxh, data, bytes);
    s.position += bytes;
}

std::string KeyPointsDigest::finish() {
    State& s = *state_;
    if (s.section != kSectionCount - 1 || s.position != s.section_end)
        throw std::logic_error("KeyPointsDigest: finished before every section was complete");
    add_zeros(s.xxh, s.layout.file_bytes - s.position);
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(s.xxh));
    return hex(canonical.digest);
}

template <class Curve>
std::vector<uint8_t> vk_section_bytes(const generic::ProvingKey<Curve>& key) {
    std::vector<uint8_t> bytes;
    auto put = [&bytes](const auto& point) {
        const auto* raw = reinterpret_cast<const uint8_t*>(&point);
        bytes.insert(bytes.end(), raw, raw + sizeof point);
    };
    put(key.vk.alpha_g1), put(key.beta_g1), put(key.delta_g1);
    put(key.vk.beta_g2), put(key.vk.gamma_g2), put(key.vk.delta_g2);
    for (const auto& point : key.vk.ic) put(point);
    return bytes;
}

template <class Curve>
std::string key_points_digest(const generic::ProvingKey<Curve>& key) {
    key.check_sizes();
    KeyPointsDigest digest(Curve::kId, key.log_n, key.num_variables, key.num_public, key.h_convention);
    const std::vector<uint8_t> vk = vk_section_bytes(key);
    using Section = KeyPointsDigest::Section;
    digest.add(Section::vk, vk.data(), vk.size());
    digest.add(Section::a, key.a_query.data(), key.a_query.size_bytes());
    digest.add(Section::b_g1, key.b_g1_query.data(), key.b_g1_query.size_bytes());
    digest.add(Section::b_g2, key.b_g2_query.data(), key.b_g2_query.size_bytes());
    digest.add(Section::l, key.l_query.data(), key.l_query.size_bytes());
    digest.add(Section::h, key.h_query.data(), key.h_query.size_bytes());
    return digest.finish();
}

std::string bytes_digest(std::span<const uint8_t> bytes) {
    uint8_t digest[16];
    digest_into(bytes.data(), bytes.size(), digest);
    return hex(digest);
}

std::string description_digest(const std::string& text) {
    return bytes_digest({reinterpret_cast<const uint8_t*>(text.data()), text.size()});
}

uint64_t key_file_bytes(curve::CurveId curve, uint32_t log_n, uint64_t num_variables, uint64_t num_public,
                        HConvention convention) {
    return layout_for(curve, log_n, num_variables, num_public, convention).file_bytes;
}

void require_room_for_key_file(const std::filesystem::path& path, uint64_t file_bytes) {
    const std::filesystem::path folder = folder_of(path);
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) fail(path, "cannot create its folder " + folder.string() + ": " + ec.message());
    struct statvfs filesystem {};
    if (::statvfs(folder.c_str(), &filesystem) != 0) return;  // the write itself will say what is wrong
    const uint64_t free_bytes = static_cast<uint64_t>(filesystem.f_bavail) * filesystem.f_frsize;
    if (free_bytes < file_bytes)
        fail(path, "needs " + size_text(file_bytes) + " but " + folder.string() + " has " + size_text(free_bytes) +
                       " free; free some space or point setup.cache_dir elsewhere");
}

template <class Curve>
void write_key_file(const std::filesystem::path& path, const generic::ProvingKey<Curve>& key,
                    const std::string& circuit_description, const std::string& setup_description) {
    key.check_sizes();
    const Layout layout = layout_for(Curve::kId, key.log_n, key.num_variables, key.num_public, key.h_convention);
    RawHeader header{};
    if (circuit_description.size() > sizeof header.circuit_description ||
        setup_description.size() > sizeof header.setup_description)
        fail(path, "the circuit or setup description is too long for the header");

    require_room_for_key_file(path, layout.file_bytes);
    try {
        util::OutputFile file(path);
        auto write_at = [&](uint64_t offset, const void* data, uint64_t bytes) {
            const auto* cursor = static_cast<const uint8_t*>(data);
            while (bytes > 0) {
                const ssize_t wrote = ::pwrite(file.descriptor(), cursor, std::min<uint64_t>(bytes, 1u << 30),
                                               static_cast<off_t>(offset));
                if (wrote <= 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
                cursor += wrote, offset += static_cast<uint64_t>(wrote), bytes -= static_cast<uint64_t>(wrote);
            }
        };

        KeyPointsDigest points_digest(Curve::kId, key.log_n, key.num_variables, key.num_public, key.h_convention);
        auto write_section = [&](int section, const void* data, uint64_t bytes) {
            write_at(layout.sections[section].offset, data, bytes);
            points_digest.add(static_cast<KeyPointsDigest::Section>(section), data, bytes);
        };
        const std::vector<uint8_t> vk = vk_section_bytes(key);
        write_section(kVk, vk.data(), vk.size());
        write_section(kA, key.a_query.data(), key.a_query.size_bytes());
        write_section(kBG1, key.b_g1_query.data(), key.b_g1_query.size_bytes());
        write_section(kBG2, key.b_g2_query.data(), key.b_g2_query.size_bytes());
        write_section(kL, key.l_query.data(), key.l_query.size_bytes());
        write_section(kH, key.h_query.data(), key.h_query.size_bytes());
        if (::ftruncate(file.descriptor(), static_cast<off_t>(layout.file_bytes)) != 0)
            fail(path, std::string("cannot extend: ") + std::strerror(errno));
        const std::string points_hex = points_digest.finish();

        std::memcpy(header.magic, kMagic, sizeof kMagic);
        header.format_version = kKeyFileFormatVersion;
        header.curve = static_cast<uint32_t>(Curve::kId);
        header.h_convention = static_cast<uint32_t>(key.h_convention);
        header.log_n = key.log_n;
        header.num_variables = key.num_variables;
        header.num_public = key.num_public;
        std::memcpy(header.sections, layout.sections, sizeof header.sections);
        digest_into(circuit_description.data(), circuit_description.size(), header.circuit_digest);
        digest_into(setup_description.data(), setup_description.size(), header.setup_digest);
        digest_into(vk.data(), vk.size(), header.vk_digest);
        unhex(points_hex, header.points_digest);
        header.circuit_description_bytes = static_cast<uint32_t>(circuit_description.size());
        header.setup_description_bytes = static_cast<uint32_t>(setup_description.size());
        std::memcpy(header.circuit_description, circuit_description.data(), circuit_description.size());
        std::memcpy(header.setup_description, setup_description.data(), setup_description.size());
        digest_into(&header, offsetof(RawHeader, header_digest), header.header_digest);
        write_at(0, &header, sizeof header);
        file.commit();
    } catch (const util::OutputFileError& e) {
        throw KeyFileError("key file " + std::string(e.what()));
    }
}

KeyFileInfo read_key_file_info(const std::filesystem::path& path) {
    KeyFileInfo info;
    Layout layout{};
    read_header(path, info, layout);
    return info;
}

template <class Curve>
generic::ProvingKey<Curve> load_key_file(const std::filesystem::path& path, const std::string& expected_circuit,
                                         KeyFileInfo* info_out) {
    using G1Affine = curve::G1Affine<Curve>;
    using G2Affine = curve::G2Affine<Curve>;
    KeyFileInfo info;
    Layout layout{};
    const RawHeader header = read_header(path, info, layout);
    require_circuit(info, expected_circuit);
    if (info.curve != Curve::kId)
        fail(path, "a " + std::string(curve::name(info.curve)) + " key where a " +
                       std::string(curve::name(Curve::kId)) + " key was asked for");

    auto mapping = std::make_shared<Mapping>(path, layout.file_bytes);
    uint8_t digest[16];
    digest_into(mapping->at(kHeaderBytes), layout.file_bytes - kHeaderBytes, digest);
    if (std::memcmp(digest, header.points_digest, 16) != 0)
        fail(path, "corrupted: the points' digest is " + hex(digest) + ", its header says " + info.points_digest +
                       "; delete it and run `zkbatch setup MANIFEST` again");

    generic::ProvingKey<Curve> key;
    key.log_n = info.log_n;
    key.num_variables = info.num_variables;
    key.num_public = info.num_public;
    key.h_convention = info.h_convention;
    read_vk_section(path, mapping->at(layout.sections[kVk].offset), info.num_public, key);
    auto g1_span = [&](int section) {
        return std::span(reinterpret_cast<const G1Affine*>(mapping->at(layout.sections[section].offset)),
                         layout.sections[section].count);
    };
    key.a_query = g1_span(kA);
    key.b_g1_query = g1_span(kBG1);
    key.b_g2_query = std::span(reinterpret_cast<const G2Affine*>(mapping->at(layout.sections[kBG2].offset)),
                               layout.sections[kBG2].count);
    key.l_query = g1_span(kL);
    key.h_query = g1_span(kH);
    key.storage = std::move(mapping);
    key.check_sizes();
    if (info_out) *info_out = std::move(info);
    return key;
}

namespace {
// The verifying key of a vk section whose digest was checked, over the curve its header names.
AnyVerifyingKey parse_vk_section(const std::filesystem::path& path, const uint8_t* bytes, const KeyFileInfo& info) {
    return curve::with_curve(info.curve, [&](auto c) -> AnyVerifyingKey {
        generic::ProvingKey<decltype(c)> key;
        read_vk_section(path, bytes, info.num_public, key);
        return std::move(key.vk);
    });
}
}  // namespace

AnyVerifyingKey load_verifying_key(const std::filesystem::path& path, const std::string& expected_circuit,
                                   KeyFileInfo* info_out) {
    KeyFileInfo info;
    Layout layout{};
    const RawHeader header = read_header(path, info, layout);
    require_circuit(info, expected_circuit);
    const std::vector<uint8_t> bytes = read_vk_bytes(path, header, layout);
    AnyVerifyingKey vk = parse_vk_section(path, bytes.data(), info);
    if (info_out) *info_out = std::move(info);
    return vk;
}

AnyVerifyingKey parse_verifying_key(std::span<const uint8_t> file, const std::filesystem::path& name,
                                    KeyFileInfo* info_out) {
    KeyFileInfo info;
    Layout layout{};
    RawHeader header{};
    const uint64_t got = std::min<uint64_t>(file.size(), sizeof header);
    if (got > 0) std::memcpy(&header, file.data(), got);
    check_header(name, header, got, file.size(), info, layout);
    // The header's layout matches the file's size, so the section lies inside it.
    const uint8_t* section = file.data() + header.sections[kVk].offset;
    const std::vector<uint8_t> bytes(section, section + layout.section_bytes[kVk]);
    check_vk_digest(name, bytes, header);
    AnyVerifyingKey vk = parse_vk_section(name, bytes.data(), info);
    if (info_out) *info_out = std::move(info);
    return vk;
}

#define ZKB_KEY_FILE_INSTANTIATE(Curve)                                                                              \
    template std::vector<uint8_t> vk_section_bytes(const generic::ProvingKey<Curve>&);                              \
    template std::string key_points_digest(const generic::ProvingKey<Curve>&);                                      \
    template void write_key_file(const std::filesystem::path&, const generic::ProvingKey<Curve>&, const std::string&, \
                                 const std::string&);                                                               \
    template generic::ProvingKey<Curve> load_key_file(const std::filesystem::path&, const std::string&, KeyFileInfo*);
ZKB_KEY_FILE_INSTANTIATE(curve::Bls12_381)
ZKB_KEY_FILE_INSTANTIATE(curve::Bn254)
#undef ZKB_KEY_FILE_INSTANTIATE

}  // namespace zkbatch::groth16
