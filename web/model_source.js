/* model_source.js — your own model in the browser. window.InferscopeModels:
 *   openPicker()     a small dialog of its own: choose or drop a checkpoint folder, or give
 *                    a URL in the Hugging Face layout (…/ORG/NAME/resolve/main/); checks
 *                    the files and their sizes, stores them in IndexedDB under a name, then
 *                    reloads the page with ?model=NAME.
 *   prepare(Module)  called by the page in preRun: for ?model=NAME, copies the stored files
 *                    into MEMFS at /models/NAME/ and appends `--model /models/NAME --weights
 *                    f16` to Module.arguments (which the page must create as an array before
 *                    the app's script runs: emscripten reads that same array at start).
 *                    The app must be linked with -sEXPORTED_RUNTIME_METHODS=FS_createPath,
 *                    FS_createDataFile,addRunDependency,removeRunDependency (emcc 3.1.6
 *                    exports none of them at -O2), and its page must not declare the
 *                    globals emscripten's script does (out, err, Module's own names).
 * The files are the ones `inferscope --model DIR` reads (src/session/model_vocab.h):
 * config.json and model.safetensors, and optionally encoder.json + vocab.bpe or
 * vocab.json (+ merges.txt); anything else in the folder is left out.
 * In memory the browser keeps the weight matrices as F16 (--weights f16): WebAssembly has
 * a 32-bit address space and the page's heap tops out near 2 GB, so an F32 GPT-2 124M
 * (498 MB) would cost twice what it needs; an F32 file is converted block by block while
 * it loads (engine/safetensors.h safe_open_header), never held twice. */
(function () {
  "use strict";
  const DB = "inferscope-models", STORE = "files", MOUNT = "/models";
  const WANTED = ["config.json", "model.safetensors", "encoder.json", "vocab.bpe", "vocab.json", "merges.txt"];
  const MB = 1024 * 1024;
  /* per file, before anything is read or stored (a tokenizer file is < 2 MB for GPT-2) */
  const MAX_BYTES = {"config.json": 1 * MB, "encoder.json": 16 * MB, "vocab.bpe": 16 * MB, "vocab.json": 16 * MB,
                     "merges.txt": 16 * MB, "model.safetensors": 4096 * MB};
  /* the weights as F16 in the wasm heap: 1 GB leaves room for the trace and the app within
   * the ~2 GB a page gets (GPT-2 355M is 0.71 GB as F16; 774M, 1.55 GB, is refused) */
  const MAX_F16_BYTES = 1024 * MB;
  const NATIVE = "use the native app for it (`make run`, then --model DIR)";
  const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

  function idb() {
    return new Promise((ok, fail) => {
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => r.result.createObjectStore(STORE);
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(new Error("IndexedDB: " + (r.error && r.error.message)));
    });
  }
  function tx(db, mode, fn) {
    return new Promise((ok, fail) => {
      const t = db.transaction(STORE, mode), st = t.objectStore(STORE), out = fn(st);
      t.oncomplete = () => ok(out && out.result !== undefined ? out.result : out);
      t.onerror = t.onabort = () => fail(new Error("IndexedDB: " + (t.error && t.error.message)));
    });
  }

  /* The safetensors header of a Blob: the element count of the floating-point tensors and
   * their dtypes, read from its first bytes only (the length is checked against the size). */
  async function safetensorsSummary(blob) {
    if (blob.size < 10) throw new Error("model.safetensors: " + blob.size + " bytes, not a safetensors file");
    const head = new DataView(await blob.slice(0, 8).arrayBuffer());
    const n = head.getUint32(0, true) + head.getUint32(4, true) * 4294967296;
    if (n < 2 || n > 100e6 || n > blob.size - 8)
      throw new Error("model.safetensors: header length " + n + " does not fit the " + blob.size + "-byte file");
    let h;
    try {
      h = JSON.parse(await blob.slice(8, 8 + n).text());
    } catch (e) {
      throw new Error("model.safetensors: the header is not JSON (" + e.message + ")");
    }
    let elems = 0;
    const dtypes = new Set();
    for (const [k, t] of Object.entries(h)) {
      if (k === "__metadata__" || !t || !Array.isArray(t.shape)) continue;
      dtypes.add(t.dtype);
      elems += t.shape.reduce((a, b) => a * b, 1);
    }
    return {elems, dtypes: [...dtypes].join("+")};
  }

  /* Checks a folder's files (a Map name -> Blob, only WANTED names) before storing:
   * returns a one-line description, or throws with what is wrong. */
  async function check(files) {
    for (const need of ["config.json", "model.safetensors"])
      if (!files.has(need)) throw new Error("the folder has no " + need + " (a checkpoint folder has config.json and model.safetensors)");
    for (const [name, b] of files)
      if (b.size > MAX_BYTES[name])
        throw new Error(name + ": " + (b.size / MB).toFixed(1) + " MB, more than the " + MAX_BYTES[name] / MB +
                        " MB the browser takes; " + NATIVE);
    let cfg;
    try {
      cfg = JSON.parse(await files.get("config.json").text());
    } catch (e) {
      throw new Error("config.json is not JSON (" + e.message + ")");
    }
    if (!cfg || typeof cfg !== "object") throw new Error("config.json is not a JSON object");
    const st = await safetensorsSummary(files.get("model.safetensors"));
    if (st.elems * 2 > MAX_F16_BYTES)
      throw new Error("too large for the browser: " + (st.elems / 1e6).toFixed(0) + " M parameters are " +
                      (st.elems * 2 / 1e9).toFixed(2) + " GB as F16, at most " + (MAX_F16_BYTES / 1e9).toFixed(2) +
                      " GB here; " + NATIVE);
    if (navigator.storage && navigator.storage.estimate) {
      const e = await navigator.storage.estimate(), total = [...files.values()].reduce((a, b) => a + b.size, 0);
      if (e.quota && e.usage !== undefined && total > e.quota - e.usage)
        throw new Error("the browser's storage has " + ((e.quota - e.usage) / MB).toFixed(0) + " MB free, the model needs " +
                        (total / MB).toFixed(0) + " MB");
    }
    return (st.elems / 1e6).toFixed(1) + " M parameters (" + st.dtypes + " in the file, F16 in memory)";
  }

  async function store(name, files) {
    const db = await idb();
    try {
      await tx(db, "readwrite", (st) => {
        for (const k of WANTED) st.delete(name + "/" + k);
        for (const [k, b] of files) st.put(b, name + "/" + k);
        st.put({files: [...files.keys()], stored: Date.now()}, name + "/");
      });
    } finally {
      db.close();
    }
  }

  /* ---- the dialog ------------------------------------------------------------------ */
  const CSS = `
  .ism-back{position:fixed;inset:0;background:rgba(0,0,0,.55);display:flex;align-items:center;justify-content:center;z-index:1000;font:18px/1.4 system-ui,sans-serif}
  .ism{background:#fff;color:#111;border-radius:10px;padding:20px 22px;width:min(92vw,560px);max-height:92vh;overflow:auto;box-shadow:0 8px 30px rgba(0,0,0,.4)}
  .ism h2{margin:0 0 12px;font-size:22px}
  .ism .drop{border:3px dashed #888;border-radius:8px;padding:18px;text-align:center;margin:10px 0}
  .ism .drop.over{border-color:#1565c0;background:#e3f2fd}
  .ism button,.ism label.pick{font:inherit;min-height:48px;min-width:48px;padding:8px 16px;border-radius:8px;border:1px solid #555;background:#f2f2f2;color:#111;cursor:pointer;display:inline-block}
  .ism input[type=text],.ism input[type=url]{font:inherit;width:100%;box-sizing:border-box;min-height:44px;padding:6px 8px;margin:4px 0 10px}
  .ism progress{width:100%;height:22px}
  .ism .msg{min-height:1.4em;margin:8px 0}
  .ism .msg.bad{color:#b00020}
  .ism .row{display:flex;gap:10px;flex-wrap:wrap;justify-content:flex-end;margin-top:10px}
  @media (prefers-color-scheme: dark){.ism{background:#222;color:#eee}.ism button,.ism label.pick{background:#333;color:#eee}.ism .msg.bad{color:#ff8a80}}`;

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text) e.textContent = text;
    return e;
  }

  function openPicker() {
    if (document.getElementById("ism-dialog")) return;
    if (!document.getElementById("ism-style")) document.head.appendChild(el("style", {id: "ism-style"}, CSS));
    const back = el("div", {class: "ism-back", id: "ism-dialog"});
    const box = el("div", {class: "ism", role: "dialog", "aria-modal": "true", "aria-labelledby": "ism-title"});
    box.appendChild(el("h2", {id: "ism-title"}, "Open your own model"));
    box.appendChild(el("p", {}, "A checkpoint folder: config.json and model.safetensors (and the tokenizer files, " +
                                "if it has its own). It is kept in this browser for the next visit."));
    const drop = el("div", {class: "drop", id: "ism-drop"});
    drop.appendChild(el("div", {}, "Drop the folder here, or"));
    const pick = el("label", {class: "pick", for: "ism-folder"}, "Choose a folder…");
    const input = el("input", {type: "file", id: "ism-folder", webkitdirectory: "", multiple: "", hidden: ""});
    drop.appendChild(pick);
    drop.appendChild(input);
    box.appendChild(drop);
    box.appendChild(el("label", {for: "ism-url"}, "…or a URL in the Hugging Face layout:"));
    const url = el("input", {type: "url", id: "ism-url", placeholder: "https://huggingface.co/ORG/NAME/resolve/main/"});
    box.appendChild(url);
    const urlGo = el("button", {type: "button", id: "ism-url-go"}, "Load from URL");
    box.appendChild(urlGo);
    box.appendChild(el("label", {for: "ism-name"}, "Name in this browser:"));
    const name = el("input", {type: "text", id: "ism-name", maxlength: "64", spellcheck: "false"});
    box.appendChild(name);
    const bar = el("progress", {id: "ism-progress", max: "1", value: "0"});
    box.appendChild(bar);
    const msg = el("div", {class: "msg", id: "ism-msg", role: "status", "aria-live": "polite"});
    box.appendChild(msg);
    const row = el("div", {class: "row"});
    const close = el("button", {type: "button", id: "ism-close"}, "Close");
    row.appendChild(close);
    box.appendChild(row);
    back.appendChild(box);
    document.body.appendChild(back);

    let busy = false;
    const say = (t, bad) => { msg.textContent = t; msg.className = bad ? "msg bad" : "msg"; };
    const done = () => back.remove();
    close.onclick = done;
    back.addEventListener("keydown", (e) => { if (e.key === "Escape" && !busy) done(); });

    async function accept(files, suggested) {
      if (busy) return;
      busy = true;
      try {
        let n = name.value.trim() || suggested || "model";
        n = n.replace(/[^A-Za-z0-9._-]/g, "_").replace(/^[._-]+/, "").slice(0, 64) || "model";
        if (!NAME_RE.test(n)) throw new Error("the name may hold letters, digits, '.', '_' and '-'");
        name.value = n;
        say("Checking…");
        const what = await check(files);
        say("Storing " + what + "…");
        bar.removeAttribute("value"); /* indeterminate while IndexedDB writes */
        await store(n, files);
        bar.value = 1;
        say("Stored as '" + n + "': opening it…");
        const u = new URL(location.href);
        u.searchParams.set("model", n);
        location.assign(u.toString());
      } catch (e) {
        bar.value = 0;
        say(e.message, true);
      } finally {
        busy = false;
      }
    }

    /* the folder's files by their own names (a folder chosen holds paths; a file's name is its last part) */
    function wanted(list) {
      const m = new Map();
      for (const f of list) {
        const base = (f.webkitRelativePath || f.name).split("/").pop();
        if (WANTED.includes(base) && !m.has(base)) m.set(base, f);
      }
      return m;
    }
    function folderName(list) {
      const p = list.length && list[0].webkitRelativePath;
      return p && p.includes("/") ? p.split("/")[0] : "";
    }
    input.onchange = () => accept(wanted(input.files), folderName(input.files));

    drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
    drop.addEventListener("dragleave", () => drop.classList.remove("over"));
    drop.addEventListener("drop", async (e) => {
      e.preventDefault();
      drop.classList.remove("over");
      const items = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
      const files = [];
      let top = "";
      for (const it of items) {
        if (it.isDirectory) {
          top = top || it.name;
          /* one level: the files of a checkpoint folder lie at its top */
          const entries = await new Promise((ok, fail) => it.createReader().readEntries(ok, fail));
          for (const f of entries) if (f.isFile) files.push(await new Promise((ok, fail) => f.file(ok, fail)));
        } else if (it.isFile) {
          files.push(await new Promise((ok, fail) => it.file(ok, fail)));
        }
      }
      accept(wanted(files), top);
    });

    urlGo.onclick = async () => {
      if (busy) return;
      let base = url.value.trim();
      /* a model page's address (https://huggingface.co/ORG/NAME) means its main branch */
      if (/^https?:\/\/[^/]+\/[^/]+\/[^/]+\/?$/.test(base)) base = base.replace(/\/?$/, "/resolve/main/");
      const m = /^(https?:\/\/[^/]+)\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/?(?:[^/]*)$/.exec(base);
      if (!m) {
        say("the URL must look like https://huggingface.co/ORG/NAME/resolve/main/", true);
        return;
      }
      base = m[1] + "/" + m[2] + "/" + m[3] + "/resolve/" + m[4] + "/";
      busy = true;
      const files = new Map();
      try {
        for (const f of WANTED) {
          say("Fetching " + f + "…");
          const r = await fetch(base + f);
          if (r.status === 404 && f !== "config.json" && f !== "model.safetensors") continue;
          if (!r.ok) throw new Error(base + f + ": HTTP " + r.status);
          const len = Number(r.headers.get("Content-Length") || 0);
          if (len > MAX_BYTES[f])
            throw new Error(f + ": " + (len / MB).toFixed(1) + " MB, more than the " + MAX_BYTES[f] / MB +
                            " MB the browser takes; " + NATIVE);
          /* read in chunks: the bar moves, and a file larger than it said stops at the limit */
          const reader = r.body.getReader(), parts = [];
          let got = 0;
          for (;;) {
            const {done: end, value} = await reader.read();
            if (end) break;
            got += value.length;
            if (got > MAX_BYTES[f]) {
              reader.cancel();
              throw new Error(f + ": more than the " + MAX_BYTES[f] / MB + " MB the browser takes; " + NATIVE);
            }
            parts.push(value);
            if (len) bar.value = got / len;
          }
          files.set(f, new Blob(parts));
        }
        if (files.has("merges.txt") && !files.has("vocab.json")) files.delete("merges.txt");
      } catch (e) {
        busy = false;
        bar.value = 0;
        say(e.message, true);
        return;
      }
      busy = false;
      accept(files, m[3]);
    };
    pick.focus();
  }

  /* ---- the page's preRun ------------------------------------------------------------ */
  function prepare(Module) {
    const n = new URLSearchParams(location.search).get("model");
    if (!n) return Promise.resolve(false);
    if (!NAME_RE.test(n)) return Promise.reject(new Error("?model=" + n + ": not a stored model's name"));
    if (!Array.isArray(Module.arguments)) return Promise.reject(new Error("Module.arguments must be an array"));
    for (const f of ["FS_createPath", "FS_createDataFile", "addRunDependency", "removeRunDependency"])
      if (typeof Module[f] !== "function")
        return Promise.reject(new Error("the app does not export " + f + " (EXPORTED_RUNTIME_METHODS)"));
    Module.addRunDependency("inferscope-model");
    const run = (async () => {
      const db = await idb();
      let index, blobs;
      try {
        index = await tx(db, "readonly", (st) => st.get(n + "/"));
        if (!index) throw new Error("no model '" + n + "' is stored in this browser (open it again with the model button)");
        const reqs = [];
        await tx(db, "readonly", (st) => { for (const f of index.files) reqs.push([f, st.get(n + "/" + f)]); });
        blobs = reqs.map(([f, r]) => [f, r.result]);
      } finally {
        db.close();
      }
      const dir = MOUNT + "/" + n;
      Module.FS_createPath("/", dir.slice(1), true, true);
      for (const [f, b] of blobs) {
        if (!WANTED.includes(f) || !b) throw new Error("model '" + n + "': " + f + " is missing from the browser's storage");
        Module.FS_createDataFile(dir, f, new Uint8Array(await b.arrayBuffer()), true, false, false);
      }
      Module.arguments.push("--model", dir, "--weights", "f16");
      return true;
    })();
    return run.finally(() => Module.removeRunDependency("inferscope-model"));
  }

  window.InferscopeModels = {prepare, openPicker};
})();
