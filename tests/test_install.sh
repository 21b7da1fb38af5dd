# test_install.sh — `make install PREFIX=<temp>` puts the binary, the assets, the lessons, a
# .desktop entry and the man page where a system expects them; the installed binary, run
# from an unrelated folder, finds its bundled model, tokenizer and fonts without the source
# tree (`next` and a headless `export`); the man page covers every option of every
# command's --help; DESTDIR staging; `make uninstall` removes exactly the files install listed
# in its manifest (a user's own model or lesson under share/inferscope stays).
. tests/check.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_install.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
ROOT=$PWD
# build flags matching the build under test, so make finds it up to date (nothing rebuilt)
san=""; grep -qa __asan_init "$BIN" && san="SAN=1"
mk() { make --no-print-directory -s BUILD="$BUILD" $san "$@"; }

mk install PREFIX="$P" >"$tmp/install.out" 2>&1; rc=$?
check "make install PREFIX=$P exits 0 ($rc)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || cat "$tmp/install.out" >&2
S=$P/share/inferscope
for f in bin/inferscope share/applications/inferscope.desktop share/man/man1/inferscope.1 \
         share/inferscope/tokenizer/encoder.json share/inferscope/tokenizer/vocab.bpe \
         share/inferscope/fonts/DejaVuSans.ttf share/inferscope/fonts/LICENSE-DejaVu.txt \
         share/inferscope/models/stories16m/model.safetensors share/inferscope/models/stories16m/MODEL_CARD.md \
         share/inferscope/lessons/README.md share/inferscope/lessons/04-sampling.lesson; do
  check "installed $f" [ -f "$P/$f" ]
done
check "binary is executable" [ -x "$P/bin/inferscope" ]
check "every lesson installed" [ "$(ls "$S/lessons/"*.lesson | wc -l)" -eq "$(ls lessons/*.lesson | wc -l)" ]
check "bundled model installed byte for byte" cmp -s "$S/models/stories16m/model.safetensors" \
  assets/models/stories16m/model.safetensors

# ---- the installed binary, from an unrelated folder, with no hint where the assets are ----
mkdir -p "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
run() { env -u INFERSCOPE_ASSETS -u DISPLAY -u SDL_VIDEODRIVER "$P/bin/inferscope" "$@"; }
run next "Once upon a" --json >next.json 2>next.err; rc=$?
check "installed 'next' exits 0 ($rc: $(head -c 200 next.err))" [ "$rc" -eq 0 ]
check "installed 'next': ' time' first, from the installed bundled model" python3 -c '
import json, sys
r = json.load(open("next.json"))["rows"][0]
assert r["id"] == 640 and r["text"] == " time" and r["p_raw"] > 0.9, r'
run info --json >info.json 2>&1
check "info names the installed model folder" python3 -c '
import json, os, sys
d = json.load(open("info.json"))
assert os.path.realpath(d["dir"]) == os.path.realpath(sys.argv[1]), d["dir"]' "$S/models/stories16m"
run export --prompt "Once upon a time" --steps 1 --seed 3 --panel tokens --size 640x400 --out figs >export.out 2>&1
rc=$?
check "installed headless export exits 0 ($rc: $(head -c 200 export.out))" [ "$rc" -eq 0 ]
check "it wrote 2 PNGs into ./figs" [ "$(ls figs/*.png 2>/dev/null | wc -l)" -eq 2 ]
check "the PNGs are real images" bash -c 'for f in figs/*.png; do [ "$(head -c 8 "$f" | od -An -tx1 | tr -d " ")" = 89504e470d0a1a0a ] || exit 1; done'
run --help >help.out 2>&1
check "window --help names the installed bundled model" grep -q "$S/models/stories16m" help.out
check "nothing was written into the source tree or the share folder" \
  bash -c '[ -z "$(find "$1" -newer "$2" -type f)" ]' _ "$S" "$S/.install-manifest"
cd "$ROOT" || exit 1

# ---- the .desktop entry ----
D=$P/share/applications/inferscope.desktop
check ".desktop: Exec is the installed binary" grep -qx "Exec=$P/bin/inferscope" "$D"
check ".desktop: a [Desktop Entry] of Type=Application with Name and Categories" \
  bash -c 'head -n 1 "$1" | grep -qx "\[Desktop Entry\]" && grep -qx "Type=Application" "$1" &&
           grep -q "^Name=inferscope$" "$1" && grep -q "^Categories=.*Education;" "$1"' _ "$D"
if command -v desktop-file-validate >/dev/null; then
  check ".desktop passes desktop-file-validate" desktop-file-validate "$D"
else
  skip test_install/desktop-file-validate "desktop-file-validate not installed (desktop-file-utils)"
fi

# ---- the man page: renders cleanly and covers every option of every --help ----
M=$P/share/man/man1/inferscope.1
check "man page renders without groff warnings" \
  bash -c '[ -z "$(groff -man -ww -z "$1" 2>&1)" ]' _ "$M"
text=$(groff -man -Tutf8 -P-cbou "$M" 2>/dev/null | sed 's/\xe2\x80\x90/-/g')
check "man page names every command of 'inferscope --help'" bash -c '
for c in $("$1" --help | sed -n "/^commands:/,/^$/p" | awk "NR>1 && NF {print \$1}"); do
  grep -q "inferscope $c " <<<"$2" || { echo "man page lacks command $c" >&2; exit 1; }
done' _ "$BIN" "$text"
missing=""
for c in "" $("$BIN" --help | sed -n "/^commands:/,/^$/p" | awk 'NR>1 && NF {print $1}'); do
  for o in $("$BIN" $c --help 2>&1 | grep -oE '(^|[ (,|\[])--[a-z][a-z0-9-]*|(^| )-n ' | grep -oE -- '-[-a-z0-9]+' | sort -u); do
    grep -qe "$o" <<<"$text" || missing="$missing ${c:-window}:$o"
  done
done
check "man page describes every option of every --help (missing:${missing:- none})" [ -z "$missing" ]

# ---- DESTDIR staging (what a package build does) ----
mk install DESTDIR="$tmp/stage" PREFIX=/usr >/dev/null 2>&1; rc=$?
check "make install DESTDIR=... PREFIX=/usr exits 0 ($rc)" [ "$rc" -eq 0 ]
check "DESTDIR: files under the stage, Exec=/usr/bin/inferscope" bash -c '
[ -x "$1/usr/bin/inferscope" ] && [ -f "$1/usr/share/inferscope/tokenizer/encoder.json" ] &&
grep -qx "Exec=/usr/bin/inferscope" "$1/usr/share/applications/inferscope.desktop"' _ "$tmp/stage"

# ---- uninstall: exactly what install wrote (its manifest), nothing of the user's ----
check "install wrote a manifest listing every installed file" bash -c '
cd "$1" && while IFS= read -r f; do case $f in */) [ -d "$f" ] ;; *) [ -f "$f" ] ;; esac || exit 1; done \
  <share/inferscope/.install-manifest && [ "$(grep -vc /\$ share/inferscope/.install-manifest)" -eq "$(find . -type f | wc -l)" ]' _ "$P"
# a model and a lesson of the user's own, as lesson 8 tells users to place them, and a file
# outside the prefix that a tampered manifest names (absolute and ../)
mkdir -p "$S/models/my-gpt2"; echo '{}' >"$S/models/my-gpt2/config.json"; echo "# mine" >"$S/lessons/mine.lesson"
echo keep >"$tmp/outside"
printf '%s\n' "$tmp/outside" "../outside" "share/../../outside" >>"$S/.install-manifest"
mk uninstall PREFIX="$P" >"$tmp/uninstall.out" 2>&1; rc=$?
check "make uninstall exits 0 ($rc)" [ "$rc" -eq 0 ]
check "the user's own model and lesson survive uninstall" \
  bash -c '[ "$(cat "$1/models/my-gpt2/config.json")" = "{}" ] && [ -f "$1/lessons/mine.lesson" ]' _ "$S"
check "a file outside the prefix named by the manifest survives" [ "$(cat "$tmp/outside")" = keep ]
left=$(find "$P" -type f ! -path "*/my-gpt2/*" ! -name mine.lesson | head -n 5)
check "no installed file left under the prefix (${left:-none})" [ -z "$left" ]
check "our emptied folders are gone, the user's stay" bash -c '[ ! -e "$1/models/stories16m" ] && [ ! -e "$1/fonts" ] &&
  [ ! -e "$1/tokenizer" ] && [ -d "$1/models/my-gpt2" ] && [ -d "$1/lessons" ]' _ "$S"
check "uninstall says it kept share/inferscope" grep -q "kept $S: it holds files install did not write" "$tmp/uninstall.out"
mk uninstall PREFIX="$P" >/dev/null 2>&1; rc=$?
check "a second uninstall is harmless ($rc), the user's files still there" \
  bash -c '[ "$1" -eq 0 ] && [ -f "$2/models/my-gpt2/config.json" ]' _ "$rc" "$S"
mk install PREFIX="$tmp/p2" >/dev/null 2>&1 && mk uninstall PREFIX="$tmp/p2" >/dev/null 2>&1
check "install then uninstall into an empty prefix: share/inferscope removed, no file left" \
  bash -c '[ ! -e "$1/share/inferscope" ] && [ -z "$(find "$1" -type f)" ]' _ "$tmp/p2"
summary test_install
