#!/usr/bin/env bash
# SASS opcode counts of a binary's NTT pass kernels, one line per kernel and opcode:
#   [SASS_KERNELS=REGEX] tools/sass-opcodes.sh BINARY [SUMMARY]
# SASS_KERNELS picks other kernels by their (mangled) name, e.g. the MSM's:
# 'accumulate_kernel|reduce_buckets|tree_sum|combine_windows'.
# With SUMMARY, one line per kernel instead: the instruction total and the counts that
# tell how the field products compiled (IMAD.WIDE fused, IMAD.X / IMAD.HI split) and how
# many integer adds the carry chains took. Needs cuobjdump (the GPU machine's CUDA
# toolkit has it; this one does not).
set -euo pipefail
binary=$1
cuobjdump=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -n 1)
[ -n "$cuobjdump" ] || { echo "sass-opcodes.sh: no cuobjdump" >&2; exit 1; }
"$cuobjdump" -sass "$binary" |
  awk -v summary="${2:-}" -v kernels="${SASS_KERNELS:-pass_kernel}" '
    /Function :/ {name = $3; sub(/.*ntt_kernels_cu_[0-9a-f]+[0-9]+/, "", name)}
    name ~ kernels && /\/\*[0-9a-f]+\*\// {
      split($0, parts, ";"); n = split(parts[1], words, " ")
      for (i = 1; i <= n; i++) if (words[i] ~ /^[A-Z][A-Z0-9.]+$/ && words[i] !~ /^P[0-9T]/) { opcode = words[i]; break }
      count[name " " opcode]++; total[name]++
    }
    END {
      if (summary == "") { for (key in count) print count[key], key; exit }
      for (name in total) {
        printf "%s: %d instructions, IMAD.WIDE.U32(.X) %d, IMAD.X %d, IMAD.HI.U32(.X) %d, IADD3(.X) %d, LOP3 %d\n", name,
          total[name], count[name " IMAD.WIDE.U32.X"] + count[name " IMAD.WIDE.U32"], count[name " IMAD.X"],
          count[name " IMAD.HI.U32.X"] + count[name " IMAD.HI.U32"], count[name " IADD3"] + count[name " IADD3.X"],
          count[name " LOP3.LUT"]
      }
    }' | sort
