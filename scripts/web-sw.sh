#!/usr/bin/env bash
# web-sw.sh DIR TEMPLATE — finishes a web build folder (make web): the page gets a
# <script> for each extra web/*.js copied beside it (model_source.js when the model
# loader is there), and the service worker the list of the folder's files and a hash
# of their bytes as its cache's version (a new build replaces every cached file at once).
set -euo pipefail
dir=$1 template=$2
cd "$dir"
extra=""
for f in *.js; do
  case $f in inferscope.js|page.js|sw.js) ;; *) extra="$extra<script src=\"$f\"></script>" ;; esac
done
model_button=""
[ -e model_source.js ] && model_button='<button id="b-model" title="load a checkpoint of your own">Your model…</button>'
sed -i -e "s|<!-- @SCRIPTS@ -->|$extra|" -e "s|<!-- @MODEL_BUTTON@ -->|$model_button|" index.html
files=$(ls | grep -vx 'sw.js' | sort)
hash=$(cat $files | sha256sum | cut -c1-16)
list="'./'"
for f in $files; do list="$list, './$f'"; done
sed -e "s|@BUILD_HASH@|$hash|" -e "s|@FILES@|$list|" "$OLDPWD/$template" >sw.js.tmp
mv sw.js.tmp sw.js
echo "web-sw: $(echo $files | wc -w) files, version $hash"
