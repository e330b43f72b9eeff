// Experiments: a manifest whose keys list several values, expanded into one arm per
// combination.
#include "manifest/manifest.hpp"

#include <string>
#include <utility>
#include <vector>

namespace zkbatch {

std::vector<Arm> expand_arms(const Manifest& manifest) {
    std::vector<Arm> arms(1);
    // The Cartesian product of the axes, first axis slowest: each arm is the manifest
    // with one value of every axis set, as --set would set it (and checked again).
    for (const Manifest::Axis& axis : manifest.axes) {
        std::vector<Arm> next;
        for (const Arm& arm : arms) {
            for (const std::string& value : axis.values) {
                Arm extended = arm;
                extended.overrides.push_back(axis.key + "=" + value);
                extended.label += (extended.label.empty() ? "" : " ") + axis.key + "=" + value;
                next.push_back(std::move(extended));
            }
        }
        arms = std::move(next);
    }
    for (Arm& arm : arms) {
        std::vector<std::string> overrides = manifest.overrides;
        overrides.insert(overrides.end(), arm.overrides.begin(), arm.overrides.end());
        arm.manifest = parse_manifest(manifest.source_text, manifest.source_path.string(), overrides);
    }
    return arms;
}

}  // namespace zkbatch
