#!/usr/bin/env python3
"""Every test of the build tree has a TIMEOUT, so a hang fails that test instead of
running into CI's limit. Reads the list ctest itself holds:
    every_test_has_a_timeout.py CTEST BUILD_DIR
"""
import json
import subprocess
import sys

ctest, build_dir = sys.argv[1:3]
listing = subprocess.run([ctest, "--test-dir", build_dir, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
tests = json.loads(listing)["tests"]
missing = [test["name"] for test in tests
           if not any(prop["name"] == "TIMEOUT" for prop in test.get("properties", []))]
print(f"{len(tests)} tests, {len(missing)} without a TIMEOUT")
for name in missing:
    print(f"  {name}")
sys.exit(1 if missing or not tests else 0)
