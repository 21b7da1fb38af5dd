// sw.js — the service worker: every file of this build cached at install, then served
// cache-first, so the page works offline after the first visit. The cache is named by
// the build's hash (scripts/web-sw.sh fills in both lists): a new build installs a new
// cache and the old one is deleted once it takes over.
'use strict';
const VERSION = 'inferscope-@BUILD_HASH@';
const FILES = [@FILES@];

self.addEventListener('install', (e) => {
  e.waitUntil(caches.open(VERSION).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('inferscope-') && k !== VERSION).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (e) => {
  if (e.request.method !== 'GET' || new URL(e.request.url).origin !== location.origin) return;
  // ignoreSearch: a link's state (?prompt=...) is the same page
  e.respondWith(caches.open(VERSION).then((c) => c.match(e.request, { ignoreSearch: true }))
    .then((hit) => hit || fetch(e.request)));
});
