'use strict';
// The student page: polls /state every 2 s, joins with the room code, sends one guess a
// round. Every text from the server is written with textContent, never as markup.
var $ = function (id) { return document.getElementById(id); };
var POLL_MS = 2000;

function say(el, t) { if (el.textContent !== t) el.textContent = t; }
function quoted(s) { return "'" + s + "'"; }

function guessLine(g) {
  var t = 'You guessed ' + quoted(g.text) + ' = token ' + g.token;
  if (g.tokens > 1)
    t += ': the model writes it as ' + g.tokens + ' tokens, ' + quoted(g.piece) + ' + ' +
         quoted(g.piece2) + (g.tokens > 2 ? ' + ...' : '') + ', and the first counts';
  return t + '.';
}

function revealLine(s) {
  var t = 'The next token was ' + quoted(s.truth.piece) + ' (token ' + s.truth.token + '). ';
  if (s.guess) t += s.right ? 'You were right! ' : 'Not this time. ';
  t += s.right_count + ' of ' + s.answered + (s.answered === 1 ? ' guess was' : ' guesses were') + ' right.';
  return t;
}

function render(s) {
  $('join').hidden = s.joined;
  $('play').hidden = $('rule').hidden = !s.joined;
  if (!s.joined) {
    say($('status'), s.locked ? 'The room is locked: the teacher lets nobody new in.'
      : s.full ? 'The room is full (' + s.max_students + ' students).' : 'Type the room code to join.');
    return;
  }
  var what = s.game === 'model' ? 'the token the model will pick' : 'the next word of the text';
  say($('status'), s.phase === 'open' ? 'Round ' + s.round + ': guess ' + what + '.'
    : s.phase === 'revealed' ? 'Round ' + s.round + ' is over. Wait for the next one.'
    : 'Wait for the teacher to start a round.');
  say($('g-label'), s.game === 'model' ? 'Your guess for the model\'s next token' : 'Your guess for the next word');
  say($('text'), s.text);
  $('text').hidden = $('text-head').hidden = !s.text;
  var canGuess = s.phase === 'open' && !s.guess;
  $('g').disabled = !canGuess;
  $('send').disabled = !canGuess;
  var r = s.guess ? guessLine(s.guess) : '';
  if (s.truth) r += (r ? '\n' : '') + revealLine(s);
  say($('result'), r);
  say($('count'), s.phase === 'waiting' ? '' : s.answered + ' of ' + s.students + ' answered.');
}

function post(path, fields) {
  return fetch(path, {
    method: 'POST', credentials: 'same-origin', cache: 'no-store',
    headers: {'Content-Type': 'application/x-www-form-urlencoded'},
    body: new URLSearchParams(fields).toString()
  }).then(function (r) { return r.json(); }).then(function (a) {
    say($('error'), a.error || '');
    if (a.state) render(a.state);
    return a;
  }).catch(function () { say($('error'), 'The teacher\'s computer did not answer. Try again.'); });
}

function poll() {
  fetch('/state', {credentials: 'same-origin', cache: 'no-store'})
    .then(function (r) { return r.json(); })
    .then(function (s) { if ($('error').textContent.indexOf('connection') >= 0) say($('error'), ''); render(s); })
    .catch(function () { say($('error'), 'Lost the connection to the teacher\'s computer; trying again.'); })
    .then(function () { setTimeout(poll, POLL_MS); });
}

$('join').addEventListener('submit', function (e) {
  e.preventDefault();
  post('/join', {code: $('code').value, name: $('name').value});
});
$('guess').addEventListener('submit', function (e) {
  e.preventDefault();
  post('/guess', {text: $('g').value}).then(function (a) { if (a && a.ok) $('g').value = ''; });
});
poll();
