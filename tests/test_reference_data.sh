# test_reference_data.sh — the vendored reference data (tests/reference) is still the
# verbatim copy its README says it is: every file matches its line of SHA256SUMS, every
# file there is listed, the lines are the original ones, and (when ../shared/reference is
# beside the checkout) both folders agree byte for byte. Catches a test or a person that
# edited the ground truth.
. tests/check.sh
D=tests/reference
ORIG=../shared/reference

check "$D/SHA256SUMS: every file matches its checksum" \
  bash -c 'cd "$1" && sha256sum --quiet -c SHA256SUMS' _ "$D"
# every data file is listed (only the two READMEs and SHA256SUMS itself are not data)
unlisted=$(cd "$D" && find . -type f ! -name README.md ! -name README-original.md ! -name SHA256SUMS |
  sed 's|^\./||' | sort | comm -23 - <(awk '{print $2}' SHA256SUMS | sort))
check "every file in $D is in SHA256SUMS (unlisted: ${unlisted:-none})" [ -z "$unlisted" ]
check "the 11 vendored files are listed" [ "$(wc -l <"$D/SHA256SUMS")" -eq 11 ]
check "tiny_s128 is not vendored (27.9 MB)" [ ! -e "$D/vectors/tiny_s128.safetensors" ]
want_readme=$(grep -o 'sha256 `[0-9a-f]\{64\}`' "$D/README.md" | head -n 1 | grep -o '[0-9a-f]\{64\}')
check "README-original.md is the copy README.md names (sha256 $want_readme)" \
  [ "$(sha256sum <"$D/README-original.md" | cut -d' ' -f1)" = "$want_readme" ]
# index.json describes tiny_s128 too: its checksum there is the one README.md gives
check "index.json and README.md agree on tiny_s128's sha256" \
  grep -q "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["vectors"]["tiny_s128"]["sha256"])' \
    "$D/vectors/index.json")" "$D/README.md"

if [ -f "$ORIG/SHA256SUMS" ]; then
  missing=$(grep -vxF -f "$ORIG/SHA256SUMS" "$D/SHA256SUMS")
  check "each SHA256SUMS line is an original line (not: ${missing:-none})" [ -z "$missing" ]
  check "README-original.md is byte for byte $ORIG/README.md" cmp -s "$D/README-original.md" "$ORIG/README.md"
  diffs=""
  while read -r _ f; do cmp -s "$D/$f" "$ORIG/$f" || diffs="$diffs $f"; done <"$D/SHA256SUMS"
  check "every vendored file is byte for byte the original (differ:${diffs:- none})" [ -z "$diffs" ]
else
  skip test_reference_data/original "$ORIG not found: the copy is checked against its own SHA256SUMS only"
fi
summary test_reference_data
