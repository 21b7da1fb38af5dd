// page.js — the page around the app (index.html): starts it with the options the
// address carries, the touch controls (each sends the key the native window knows,
// through web_key, so the keys table in src/app/keys.c stays the one truth), the
// lesson menu, the address bar as the state (read through web_state_query, never
// decoded here), a dropped figure reopened, the service worker for offline use.
'use strict';
(function () {
  const SDLK = { RIGHT: 0x4000004F, LEFT: 0x40000050, DOWN: 0x40000051, UP: 0x40000052,
                 PAGEDOWN: 0x4000004E, F1: 0x4000003A, t: 116, g: 103, i: 105, e: 101 };
  const params = new URLSearchParams(location.search);
  // a lesson by name only (letters, digits, - and _): the page never opens a path
  const lessonName = /^[A-Za-z0-9_-]{1,64}$/.test(params.get('lesson') || '') ? params.get('lesson') : '';
  const canvas = document.getElementById('canvas');
  const statusEl = document.getElementById('status');
  let lastQuery = null;

  function say(text) { statusEl.textContent = text; }

  const args = [];
  if (lessonName) args.push('--lesson', '/lessons/' + lessonName + '.lesson');
  if (/^(light|dark)$/.test(params.get('theme') || '') && ![...params.keys()].includes('prompt'))
    args.push('--theme', params.get('theme'));

  const Module = window.Module = {
    canvas: canvas,
    arguments: args,
    noInitialRun: true,
    print: (t) => console.log(t),
    printErr: (t) => { console.warn(t); if (/^inferscope/.test(t)) window.inferscopeLastError = t; },
    preRun: [function () {
      // SDL listens for keys on the canvas only, so the prompt field types text
      Module.ENV.SDL_EMSCRIPTEN_KEYBOARD_ELEMENT = '#canvas';
      // SDL's software renderer (the canvas gets finished frames) at devicePixelRatio 1:
      // the same pixels as the native export, no WebGL needed on an old school PC. On a
      // high-DPI screen WebGL (SDL's GLES2 renderer) draws at the screen's pixels for
      // crisp text: SDL 2.26's software framebuffer ignores the ratio and would fill a
      // quarter of the canvas, so with ?renderer=software there the page reports ratio 1
      // (sharp layout, softer text); so without WebGL too. ?renderer=gl|software chooses.
      const asked = params.get('renderer');
      const hasWebGL = () => { try { return !!document.createElement('canvas').getContext('webgl'); } catch (e) { return false; } };
      const gl = asked === 'gl' || (asked !== 'software' && window.devicePixelRatio > 1 && hasWebGL());
      Module.ENV.SDL_RENDER_DRIVER = gl ? 'opengles2' : 'software';
      if (!gl && window.devicePixelRatio !== 1) Object.defineProperty(window, 'devicePixelRatio', { get: () => 1 });
      if (window.InferscopeModels) {
        Module.addRunDependency('inferscope-models');
        window.InferscopeModels.prepare(Module).catch((e) => console.error('inferscope: models: ' + e))
          .finally(() => Module.removeRunDependency('inferscope-models'));
      }
    }],
    setStatus: (t) => { if (t) say(t); },
    onAbort: (what) => say('inferscope stopped: ' + what),
    onRuntimeInitialized: start,
  };

  function call(name, ret, types, vals) { return Module.ccall(name, ret, types, vals); }
  function key(code, mod) { call('web_key', null, ['number', 'number'], [code, mod || 0]); canvas.focus(); }

  // The app's own state as a query, from C; null before the first frame.
  function stateQuery() {
    const p = Module._web_state_query();
    if (!p) return null;
    const q = Module.UTF8ToString(p);
    Module._free(p);
    return (lessonName ? 'lesson=' + lessonName + '&' : '') + q;
  }
  window.inferscopeState = stateQuery; // for tests and the curious
  // SDL's renderer in use: 'software' or 'opengles2' (WebGL), null before the first frame
  window.inferscopeRenderer = () => { const p = Module._web_renderer_name(); return p ? Module.UTF8ToString(p) : null; };

  function start() {
    fillLessons();
    // a stored model loads in main, seconds in which the page cannot paint: say so first,
    // then start a frame later. A lesson no longer waits: the window opens at once and
    // draws its check (every beat run on the model, a beat per frame) itself.
    if (!params.get('model')) return run();
    say('loading the model ' + params.get('model') + '…');
    requestAnimationFrame(() => setTimeout(run, 0));
  }

  // The lesson is ready when its check is done (the state has no `checking` any more):
  // make bench-web and the tests read the time, from the start of the navigation.
  function watchLesson() {
    const q = stateQuery();
    if (q !== null && !/(^|&)checking=/.test(q)) {
      window.inferscopeLessonReadyMs = performance.now();
      console.log('inferscope: lesson ' + lessonName + (/(^|&)beat=/.test(q) ? ' ready' : ' did not open (see the window)'));
      return;
    }
    requestAnimationFrame(watchLesson);
  }

  function run() {
    try { Module.callMain(args); } catch (e) { if (e !== 'unwind') throw e; }
    // two animation frames: the loop has drawn the first frame
    requestAnimationFrame(() => requestAnimationFrame(() => {
      if (stateQuery() === null) { // main returned: a bad lesson, a model that did not load
        say(window.inferscopeLastError || 'inferscope did not start (see the console)');
        window.inferscopeReady = true;
        return;
      }
      document.body.classList.add('running');
      openLinkState();
      canvas.focus();
      setInterval(syncAddress, 400);
      window.inferscopeReady = true;
      // from the start of the navigation (performance.now()'s origin): make bench-web reads it
      window.inferscopeFirstFrameMs = performance.now();
      console.log('inferscope: first frame (renderer ' + window.inferscopeRenderer() + ')');
      if (lessonName) watchLesson();
    }));
  }

  // A link with a figure's keys opens that state; ?lesson=NAME&beat=K that beat.
  function openLinkState() {
    const rest = new URLSearchParams(location.search);
    const beat = parseInt(rest.get('beat') || '', 10);
    for (const k of ['lesson', 'beat', 'beats']) rest.delete(k);
    if (lessonName && beat > 1) call('web_show_beat', null, ['number'], [beat]);
    else if (!lessonName && rest.has('ids')) call('web_open_state', 'number', ['string'], [location.search.slice(1)]);
  }

  function syncAddress() {
    const q = stateQuery();
    // not while a lesson is checked: its link is the beat it will show, written once it does
    if (q === null || q === lastQuery || /(^|&)checking=/.test(q)) return;
    lastQuery = q;
    history.replaceState(null, '', '?' + q);
  }

  function fillLessons() {
    const sel = document.getElementById('lesson');
    let names = [];
    try { names = Module.FS.readdir('/lessons').filter((n) => n.endsWith('.lesson')).map((n) => n.slice(0, -7)); }
    catch (e) { console.warn('inferscope: no lessons: ' + e); }
    for (const n of names.sort()) {
      const o = document.createElement('option');
      o.value = n; o.textContent = n; o.selected = n === lessonName;
      sel.appendChild(o);
    }
    sel.addEventListener('change', () => {
      // presenter mode starts with the window: a new page for the lesson (or none)
      location.search = sel.value ? '?lesson=' + encodeURIComponent(sel.value) : '';
    });
  }

  const on = (id, fn) => document.getElementById(id).addEventListener('click', fn);
  on('b-back', () => key(SDLK.LEFT));
  on('b-step', () => key(SDLK.RIGHT));
  on('b-tdown', () => { key(SDLK.t); key(SDLK.DOWN); });
  on('b-tup', () => { key(SDLK.t); key(SDLK.UP); });
  on('b-greedy', () => key(SDLK.g));
  on('b-inside', () => key(SDLK.i));
  on('b-help', () => key(SDLK.F1));
  on('b-beat', () => key(SDLK.PAGEDOWN));
  on('b-export', () => key(SDLK.e));
  on('b-full', () => {
    if (document.fullscreenElement) document.exitFullscreen();
    else document.documentElement.requestFullscreen().catch((e) => console.warn('inferscope: full screen: ' + e));
  });
  const promptEl = document.getElementById('prompt');
  const setPrompt = () => { if (promptEl.value) call('web_set_prompt', null, ['string'], [promptEl.value]); canvas.focus(); };
  on('b-prompt', setPrompt);
  promptEl.addEventListener('keydown', (e) => { if (e.key === 'Enter') setPrompt(); });
  canvas.addEventListener('pointerdown', () => canvas.focus());
  const modelBtn = document.getElementById('b-model');
  if (modelBtn && window.InferscopeModels) modelBtn.addEventListener('click', () => window.InferscopeModels.openPicker());
  else if (modelBtn) modelBtn.remove();

  // A figure PNG dropped on the page reopens its state (the --open-figure path).
  document.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
  document.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
  document.addEventListener('drop', async (e) => {
    e.preventDefault();
    document.body.classList.remove('dragging');
    const f = e.dataTransfer.files[0];
    if (!f || !window.inferscopeReady) return;
    const path = '/uploads/' + (f.name.replace(/[^A-Za-z0-9._-]/g, '_') || 'figure.png');
    Module.FS.writeFile(path, new Uint8Array(await f.arrayBuffer()));
    call('web_open_figure', 'number', ['string'], [path]);
    Module.FS.unlink(path);
    canvas.focus();
  });
  window.inferscopeOpenFigureBytes = (name, bytes) => { // the same, for tests
    const path = '/uploads/' + name.replace(/[^A-Za-z0-9._-]/g, '_');
    Module.FS.writeFile(path, bytes);
    const rc = call('web_open_figure', 'number', ['string'], [path]);
    Module.FS.unlink(path);
    return rc;
  };

  // offline after the first visit (not from file://, where there are no workers)
  if ('serviceWorker' in navigator && location.protocol.startsWith('http'))
    navigator.serviceWorker.register('sw.js').catch((e) => console.warn('inferscope: service worker: ' + e));
})();
