/* day60 serve: the page's own script. Served from this server only (the Content-Security-Policy
   allows nothing else); it never builds HTML from text: every fragment it places comes from the
   server, rendered and escaped there.

   - New lines: the server's event stream says when this page's view of the journal grew; the
     page then fetches the timeline and the open items again (keeping what is being typed), and
     swaps the open items step by step, so a step still offered stays the same element and a
     press aimed at its button is never lost; it waits while a pointer is down on the open items
     or this page's press is on its way.
   - Lost connection: a press that cannot reach the server is queued in this browser with the
     browser's time of the press, and sent when the connection is back; the server records it
     "late", keeping that time. A sealed onset is never queued. A queued press the server asks
     to confirm (a time outside the window, say) holds the rest of the queue until the person
     records it or lets it go, so no answer replaces another unseen.
   - Trying again: the stream is reopened by this script, not the browser (which would try every
     second for as long as the page is open, and give up for good on a refused key): after 1 s
     three times, then waiting twice as long each time, up to 30 s. A fetch that failed while the
     stream is open is tried again on the same schedule; while it is closed, its reopening
     refreshes. A key the server no longer accepts (it was restarted with a new secret, or this
     browser left on another tab) stops every request: the page says to join again.
   - Answers where the person looks: the answer box moves next to the step whose button was
     pressed (and stays there when the step is gone), scrolled into view; a plain "recorded"
     fades after a while, a refusal or a question stays until answered.
   - Keyboard: the focus stays where it was across refreshes; n and p move between the steps;
     other people's new lines are read out by screen readers (a polite live region).
   - What is typed in a step is kept in this tab (sessionStorage) until it is recorded, so a
     reload does not lose it; a press on its way is kept too (localStorage, by its key) until its
     answer is back, so a reload that cut it off queues it and sends it again, once.
   - One press a click: a form whose press is on its way sends nothing more (hx-sync drop), and a
     second click just after a "recorded", nothing typed since, carries the first press's key. */
(function () {
  "use strict";
  var meta = document.querySelector('meta[name="day60-csrf"]');
  if (!meta || typeof htmx === "undefined") { return; }
  var csrf = meta.getAttribute("content");
  var body = document.body;
  var QUEUE = "day60-queue|" + body.getAttribute("data-journal") + "|" + body.getAttribute("data-who");
  var conn = document.getElementById("conn");
  var queuedNote = document.getElementById("queued");
  var result = document.getElementById("result");
  var answer = document.getElementById("answer");  // the answer box and the line saying what it is about
  var about = document.getElementById("about");
  var home = document.getElementById("home");
  var said = document.getElementById("said");
  var TYPED = "day60-typed|" + body.getAttribute("data-journal") + "|" + body.getAttribute("data-who");
  // Presses on their way, by press key, until their answer is back: a page unloaded meanwhile (a
  // reload just after "Record") finds them here and queues them, so each is sent again with its
  // key and recorded once, never lost without a word.
  var SENDING = "day60-sending|" + body.getAttribute("data-journal") + "|" + body.getAttribute("data-who");
  var flushing = false;
  var earlier = [];  // the answers of queued presses sent so far in this round, kept on screen together
  var answerAt = null;
  var inFlight = null;  // the data-key of the step whose press is on its way  // the data-key of the step the answer box sits beside, and the steps around it
  var lastPressed = null;

  function dismissible(role, parts) {
    // A warning box holding ``parts`` and an OK button (class "dismiss", which the click handler
    // below clears), announced as ``role``: "alert" or "status".
    var box = document.createElement("div"), ok = document.createElement("button");
    box.className = "warning";
    box.setAttribute("role", role);
    parts.forEach(function (part) { box.appendChild(part); });
    ok.type = "button";
    ok.className = "dismiss";
    ok.textContent = "OK";
    box.appendChild(ok);
    return box;
  }

  function setConn(ok) {
    var text = ok ? "connected" : "not connected: presses are queued here and sent when it is back";
    if (conn.textContent === text) { return; }  // a status region read out again at every line would drown the room
    conn.textContent = text;
    conn.className = ok ? "conn ok" : "conn lost";
  }

  function pressKey() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }

  function loadQueue() {
    try { return JSON.parse(localStorage.getItem(QUEUE) || "[]"); } catch (e) { return []; }
  }

  function loadSending() {
    try { return JSON.parse(localStorage.getItem(SENDING) || "{}"); } catch (e) { return {}; }
  }
  function sendingDone(key) {
    if (!key) { return; }
    var all = loadSending();
    if (key in all) { delete all[key]; localStorage.setItem(SENDING, JSON.stringify(all)); }
  }

  function saveQueue(items) {
    localStorage.setItem(QUEUE, JSON.stringify(items));
    queuedNote.textContent = items.length ? items.length + " press(es) queued: they will be recorded late" : "";
  }

  function head(id) {
    var el = document.getElementById(id || "head");
    return el ? parseInt(el.getAttribute("data-head"), 10) : -1;
  }

  // ----- keeping what is being typed across a refresh of the open items -------------------
  function capture() {
    var kept = {};
    document.querySelectorAll("#state details.step").forEach(function (d) {
      var values = {}, texts = [];
      d.querySelectorAll("input, select").forEach(function (el) {
        if (el.type !== "hidden" && el.name) { values[el.name] = el.type === "checkbox" ? el.checked : el.value; }
        if (el.tagName === "INPUT" && el.type !== "hidden" && el.type !== "checkbox" && el.value) { texts.push(el.name); }
      });
      kept[d.getAttribute("data-key")] = {open: d.open, values: values, texts: texts};
    });
    var active = document.activeElement;
    var inResult = active && result.contains(active) ? active : null;
    var focus = !inResult && active && active.closest && active.closest("#state details.step");
    var where = null;
    if (focus) { where = active.tagName === "SUMMARY" ? "__summary" : active.name; }
    var steps = Array.prototype.slice.call(document.querySelectorAll("#state details.step"));
    var lostAt = -1;  // the focus is elsewhere in the open items (a heading, the reveal button)
    var byId = null;  // ... on something with an id (the "Next steps" heading the skip link reaches)
    if (!focus && !inResult && active && active !== document.body && active.closest && active.closest("#state")) {
      lostAt = steps.length;
      byId = active.id || null;
    }
    var seqs = {};
    document.querySelectorAll("#timeline tr[data-seq]").forEach(function (tr) { seqs[tr.getAttribute("data-seq")] = 1; });
    if (answer.parentNode !== home) { home.appendChild(answer); }  // kept out of the swap, put back by restore()
    var notes = Array.prototype.slice.call(document.querySelectorAll("#state .kept[data-for]"));
    notes.forEach(function (n) { n.parentNode.removeChild(n); });  // likewise
    return {kept: kept, notes: notes, focus: focus ? [focus.getAttribute("data-key"), where, steps.indexOf(focus)] : null,
            anchor: anchor(focus || null), inResult: inResult, lostAt: lostAt, byId: byId, seqs: seqs};
  }

  // The step a person is working in (the one holding the focus, else the first open one on the
  // screen) and where it is on the screen. Another person's press can add steps above it; the
  // page then scrolls by as much, so the step, and the button about to be pressed, stay under the
  // pointer instead of a different step sliding in beneath it.
  var pointerAt = null;  // where the pointer last moved over the page, and whether after the last key
  document.addEventListener("pointermove", function (ev) { pointerAt = {x: ev.clientX, y: ev.clientY}; }, true);
  document.addEventListener("keydown", function () { pointerAt = null; }, true);
  function anchor(focus) {
    var under = pointerAt && document.elementFromPoint(pointerAt.x, pointerAt.y);
    var step = (under && under.closest && under.closest("#state details.step")) || focus;
    if (!step) {
      var open = document.querySelectorAll("#state details.step[open]");
      for (var i = 0; i < open.length && !step; i++) {
        var box = open[i].getBoundingClientRect();
        if (box.bottom > 0 && box.top < window.innerHeight) { step = open[i]; }
      }
    }
    return step ? {key: step.getAttribute("data-key"), top: step.getBoundingClientRect().top} : null;
  }

  function restore(saved) {
    document.querySelectorAll("#state details.step").forEach(function (d) {
      if (saved.anchor && saved.anchor.key === d.getAttribute("data-key")) { saved.anchor.step = d; }
      var was = saved.kept[d.getAttribute("data-key")];
      if (!was) { return; }
      d.open = was.open;
      d.querySelectorAll("input, select").forEach(function (el) {
        if (el.name in was.values) {
          if (el.type === "checkbox") { el.checked = was.values[el.name]; }
          else if (el.value !== was.values[el.name]) { el.value = was.values[el.name]; }  // a kept field keeps its caret
        }
      });
      if (saved.focus && saved.focus[0] === d.getAttribute("data-key")) {
        var target = saved.focus[1] === "__summary" ? d.querySelector("summary")
          : d.querySelector('[name="' + saved.focus[1] + '"]');
        if (target) { target.focus({preventScroll: true}); saved.focused = true; }
      }
    });
    (saved.notes || []).forEach(function (n) {
      var at = findStep(n.getAttribute("data-for"));
      if (at) { at.parentNode.insertBefore(n, at.nextSibling); }  // a step gone (done) takes its note with it
    });
    placeAnswer();
    var lost = vanished(saved);
    if (lost && answerAt && answerAt.key === lost.key && result.firstChild) { lost = null; }  // its answer says
    if (lost) {
      // A step this person was typing in was recorded by someone else: the draft is kept on the
      // screen, with who recorded it and when, and the focus goes to that message, not to a step
      // that slid into its place (where the next Enter would open the wrong one).
      answerAt = {key: lost.key};
      fading++;
      result.innerHTML = "";
      var line = document.createElement("p"), draft = document.createElement("p");
      line.textContent = lost.text;
      draft.textContent = "Your draft, not sent: " + lost.draft;
      draft.className = "draft";
      result.appendChild(dismissible("alert", [line, draft]));
      result.className = "result";
      unpin();  // the message names its step itself; an earlier answer's "about" line is not its
      pin("");
      if (saved.focus && saved.focus[0] === lost.key) { result.focus({preventScroll: true}); saved.focus = null; }
    }
    if (saved.inResult && document.contains(saved.inResult)) {
      saved.inResult.focus({preventScroll: true});
    } else if (saved.byId && document.getElementById(saved.byId)) {
      // the same element of the new copy: a refresh does not carry the focus from the heading to a step
      document.getElementById(saved.byId).focus({preventScroll: true});
    } else if ((saved.focus && !saved.focused) || saved.lostAt >= 0) {
      // The step in focus is gone (it was done): the focus goes to the step now in its place,
      // never to the page's body, from where the next Tab would reach "leave".
      var steps = document.querySelectorAll("#state details.step summary");
      var at = saved.focus ? saved.focus[2] : saved.lostAt;
      var next = steps[Math.min(at, steps.length - 1)] || document.getElementById("steps") ||
        document.getElementById("state");
      next.focus({preventScroll: true});
    }
    if (saved.anchor && saved.anchor.step) {
      var moved = saved.anchor.step.getBoundingClientRect().top - saved.anchor.top;
      if (moved) { window.scrollBy(0, moved); }
    }
    announce(saved.seqs);
  }

  // A step open with something typed in it that is gone after this refresh: what it was, who
  // recorded it (the newest line of its kind and id) and what had been typed; or null.
  function vanished(saved) {
    if (!saved.seqs) { return null; }
    var keys = Object.keys(saved.kept);
    for (var i = 0; i < keys.length; i++) {
      var was = saved.kept[keys[i]];
      if (!was.open || findStep(keys[i])) { continue; }
      if (keys[i] === inFlight) { continue; }  // this page's own press: its answer says what became of it
      var inputs = (was.texts || []).filter(function (n) { return was.values[n] && String(was.values[n]).trim(); });
      if (!inputs.length) { continue; }
      var parts = keys[i].split("|"), row = null;
      document.querySelectorAll("#timeline tr[data-seq]").forEach(function (tr) {
        if (!row && !saved.seqs[tr.getAttribute("data-seq")] && tr.getAttribute("data-kind") === parts[0] &&
            tr.getAttribute("data-id") === parts[1]) { row = tr; }
      });
      var label = parts.slice(2).join("|");
      var text = row ? (row.getAttribute("data-by") || "Someone") + " just recorded \u201c" + label + "\u201d (seq " +
        row.getAttribute("data-seq") + ", at " + row.getAttribute("data-at") + "); it is no longer offered."
        : "\u201c" + label + "\u201d is no longer offered: it was just recorded.";
      var draft = inputs.map(function (n) {
        return (n === "at" ? "when" : n.replace(/^f\./, "").replace(/_/g, " ")) + ": " + was.values[n];
      });
      return {key: keys[i], text: text, draft: draft.join("; ")};
    }
    return null;
  }

  // Other people's new lines, read out by screen readers (the timeline itself is not a live region:
  // a whole table read again at every line would drown the room).
  function announce(before) {
    if (!before) { return; }  // the page's own first restore after a reload: nothing is new
    var news = [];
    document.querySelectorAll("#timeline tr[data-seq]").forEach(function (tr) {
      if (!before[tr.getAttribute("data-seq")] && tr.getAttribute("data-by") !== body.getAttribute("data-who")) {
        news.push(tr.getAttribute("data-said"));
      }
    });
    if (news.length) { said.textContent = "New: " + news.reverse().join("; ") + "."; }
  }

  // ----- the answer box, next to the step pressed ----------------------------------------
  function keyOf(d) { return d ? d.getAttribute("data-key") : null; }

  // A refusal left when another step is pressed stays under its own step (a copy, no longer read
  // out), until its OK is pressed or its step is gone: a press elsewhere never wipes it.
  function keepRefusal(key) {
    var old = findStep(answerAt && answerAt.key);
    var refusal = result.querySelector(".refused");
    if (!old || !refusal || answerAt.key === key || answer.classList.contains("pinned")) { return; }
    var note = refusal.cloneNode(true);
    note.removeAttribute("role");
    note.classList.add("kept");
    note.setAttribute("data-for", answerAt.key);
    note.querySelectorAll("button.dismiss").forEach(function (b) { b.className = "dismiss-kept"; });
    old.parentNode.insertBefore(note, old.nextSibling);
  }

  function placeBeside(form) {
    var step = form.closest("details.step") || form;
    keepRefusal(keyOf(step));
    var all = Array.prototype.slice.call(document.querySelectorAll("#state details.step"));
    var i = all.indexOf(step);
    answerAt = {key: keyOf(step), before: i > 0 ? keyOf(all[i - 1]) : null,
                after: i >= 0 && i + 1 < all.length ? keyOf(all[i + 1]) : null};
    unpin();
    step.parentNode.insertBefore(answer, step.nextSibling);
  }

  // The answer's step is gone (someone else recorded it, or this press did): the answer is pinned to
  // the bottom of the screen, saying which step it is about, never left under another step's heading.
  function pin(label) {
    if (!result.firstChild) { unpin(); home.appendChild(answer); return; }
    if (label) { about.textContent = "About \u201c" + label + "\u201d, no longer on the list:"; about.hidden = false; }
    answer.classList.add("pinned");
    home.appendChild(answer);
  }
  function unpin() { answer.classList.remove("pinned"); about.hidden = true; about.textContent = ""; }

  function findStep(key) {
    if (!key) { return null; }
    var found = null;
    document.querySelectorAll("#state details.step").forEach(function (d) { if (keyOf(d) === key) { found = d; } });
    return found;
  }

  // Back beside its step after the open items were fetched again; a step that is gone (done)
  // leaves the answer where it stood, between the steps that were around it.
  function placeAnswer() {
    if (!answerAt) { return; }
    var step = findStep(answerAt.key);
    if (step && !answer.classList.contains("pinned")) { step.parentNode.insertBefore(answer, step.nextSibling); return; }
    pin(answerAt.key ? answerAt.key.split("|").slice(2).join("|") : "");
  }

  function inView() {
    if (!result.firstChild) { return; }
    var box = result.getBoundingClientRect();
    if (box.top < 60 || box.bottom > window.innerHeight) { result.scrollIntoView({block: "nearest"}); }
  }

  var fading = 0;
  result.addEventListener("htmx:afterSwap", function () {
    inView();
    // The answer replaced the question whose button had the focus: the focus goes to the answer
    // (read out, and the next Tab goes on from there), never to the page's body.
    if (!document.activeElement || document.activeElement === document.body) { result.focus({preventScroll: true}); }
    var mine = ++fading;
    if (result.querySelector("[data-fades]")) {
      setTimeout(function () {
        if (mine === fading && result.querySelector("[data-fades]")) {
          result.innerHTML = "";
          if (answer.classList.contains("pinned")) { unpin(); home.appendChild(answer); }
        }
      }, 20000);
    }
  });

  var refreshing = false, again = false;
  function fetchText(url) {
    return fetch(url, {credentials: "same-origin", headers: {"HX-Request": "true"}}).then(function (response) {
      if (!response.ok) {
        var failed = new Error(url + ": " + response.status);
        failed.status = response.status;
        throw failed;
      }
      return response.text();
    });
  }

  // ----- waiting before trying again ------------------------------------------------------
  function Backoff() { this.tries = 0; }
  Backoff.prototype.next = function () {
    this.tries += 1;
    return this.tries <= 3 ? 1000 : Math.min(30000, 1000 * Math.pow(2, this.tries - 3));
  };
  Backoff.prototype.reset = function () { this.tries = 0; };
  var refetchWait = new Backoff(), reopenWait = new Backoff();

  var stream = null, reopen = null, refused = false, flusher = null, heard = Date.now();
  function streaming() { return stream !== null && stream.readyState === 1; }

  // The server refused this page's key: nothing this page sends can be recorded, so it stops.
  function keyRefused() {
    if (refused) { return; }
    refused = true;
    if (stream) { stream.close(); stream = null; }
    if (retry !== null) { clearTimeout(retry); retry = null; }
    if (reopen !== null) { clearTimeout(reopen); reopen = null; }
    if (flusher !== null) { clearInterval(flusher); flusher = null; }
    conn.textContent = "not joined: this server no longer accepts this page's key (it was restarted with a " +
      "new secret, or you left); load the page to join again";
    conn.className = "conn lost";
  }

  // A button pressed while its step is swapped for a fresh copy never receives its click (the
  // press goes down on one element and comes up on another), so while a pointer is down on the
  // open items the swap waits for it to come up, and for the click that follows to be handled.
  // Each pointer is tracked by its id: a second finger pressed elsewhere, or a later press by a
  // mouse whose release was lost outside the window, never drops a press still on the open items,
  // and a swap queued meanwhile is always run (by the last release, or by the cap).
  var held = new Set(), released = [];
  document.addEventListener("pointerdown", function (ev) {
    if (ev.target && ev.target.closest && ev.target.closest("#state")) { held.add(ev.pointerId); }
    else { held.delete(ev.pointerId); }
  }, true);
  function drain() {
    setTimeout(function () { released.splice(0).forEach(function (go) { go(); }); }, 0);
  }
  function letGo(ev) {
    held.delete(ev.pointerId);
    if (!held.size) { drain(); }
  }
  document.addEventListener("pointerup", letGo, true);
  document.addEventListener("pointercancel", letGo, true);
  function whenReleased() {
    return new Promise(function (go) {
      if (!held.size) { go(); return; }
      released.push(go);
      // a pointer that never came up (released outside the window) holds no longer
      setTimeout(function () { held.clear(); drain(); }, 3000);
    });
  }

  // A press on its way keeps its form where it is until its answer is back: a form swapped out
  // mid-flight would hear nothing of its answer (its "recorded" would not clear what was typed,
  // which a fresh copy of the step would then offer to send again). A press not answered within
  // 10 s holds the page no longer.
  var sending = new Set(), answered = [];
  document.body.addEventListener("htmx:beforeRequest", function (ev) {
    var xhr = ev.detail && ev.detail.xhr;
    if (!xhr) { return; }
    sending.add(xhr);
    var done = function () {
      if (!sending.delete(xhr)) { return; }
      if (!sending.size) { setTimeout(function () { answered.splice(0).forEach(function (go) { go(); }); }, 0); }
    };
    xhr.addEventListener("loadend", done);
    setTimeout(done, 10000);
  });
  function whenAnswered() {
    return new Promise(function (go) { if (!sending.size) { go(); } else { answered.push(go); } });
  }
  // No pointer held on the open items and no press on its way, checked again after each wait.
  function quiet() {
    return whenReleased().then(whenAnswered).then(function () { return held.size || sending.size ? quiet() : null; });
  }

  // The open items are swapped step by step, not wholesale: a step still offered is the same
  // element after the refresh (its heading, fields and button updated in place when the server's
  // copy changed), and only steps that are new or gone are added or removed. A button a person
  // (or a test's click) has aimed at is therefore never replaced between the aim and the press,
  // which lost the press without a word: the click landed on a detached copy, or on none.
  function swapState(html) {
    var state = document.getElementById("state");
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    var olds = {};
    Array.prototype.forEach.call(state.children, function (d) {
      if (d.matches("details.step[data-key]")) { olds[keyOf(d)] = d; }
    });
    var next = Array.prototype.map.call(tpl.content.childNodes, function (n) {
      var old = n.nodeType === 1 && n.matches("details.step[data-key]") ? olds[keyOf(n)] : null;
      if (!old) { return n; }
      delete olds[keyOf(n)];
      morph(old, n);
      return old;
    });
    var keep = new Set(next);
    Array.prototype.slice.call(state.childNodes).forEach(function (n) { if (!keep.has(n)) { state.removeChild(n); } });
    var cursor = state.firstChild;
    next.forEach(function (n) {
      if (n === cursor) { cursor = cursor.nextSibling; } else { state.insertBefore(n, cursor); }
    });
    htmx.process(state);  // new forms get their handlers; a kept one is left as it is
  }

  // One element brought to the server's copy in place: attributes, then children pairwise (an
  // element of another tag or name is replaced). What the person set is left to restore(): a
  // step's "open", a field's value, and the press's own marks on its form.
  var OWN = {"open": 1, "data-pressed": 1, "data-press-key": 1, "data-recorded-key": 1, "data-recorded-at": 1};
  function morph(old, fresh) {
    Array.prototype.slice.call(old.attributes).forEach(function (a) {
      if (!fresh.hasAttribute(a.name) && !OWN[a.name]) { old.removeAttribute(a.name); }
    });
    Array.prototype.forEach.call(fresh.attributes, function (a) {
      if (old.getAttribute(a.name) !== a.value) { old.setAttribute(a.name, a.value); }
    });
    var oc = Array.prototype.slice.call(old.childNodes), fc = Array.prototype.slice.call(fresh.childNodes);
    fc.forEach(function (f, i) {
      var o = oc[i];
      if (!o) { old.appendChild(f); return; }
      if (o.nodeType !== f.nodeType || (f.nodeType === 1 && (o.tagName !== f.tagName ||
          o.getAttribute("name") !== f.getAttribute("name")))) { old.replaceChild(f, o); return; }
      if (f.nodeType === 1) { morph(o, f); } else if (o.nodeValue !== f.nodeValue) { o.nodeValue = f.nodeValue; }
    });
    for (var j = fc.length; j < oc.length; j++) { old.removeChild(oc[j]); }
  }

  // Both fragments are fetched first, then swapped at once: what is open or typed is read at that
  // moment, so a step opened while the fragments were on their way stays open. Each fragment names
  // the last line it was made from; when a line landed between the two fetches they differ, and
  // the page fetches both again rather than show open items older than its timeline.
  var retry = null;
  function refresh() {
    if (refused) { return; }
    if (refreshing) { again = true; return; }
    refreshing = true;
    Promise.all([fetchText("/fragment/timeline"), fetchText("/fragment/state")])
      .then(function (parts) {
        refetchWait.reset();
        return quiet().then(function () {
          var saved = capture();
          htmx.swap("#timeline", parts[0], {swapStyle: "innerHTML"});
          swapState(parts[1]);
          restore(saved);
          if (head() !== head("state-head")) { again = true; }
        });
      }, function (failed) {
        again = false;
        if (failed && failed.status === 401) { keyRefused(); return; }
        // A fetch failed while the stream is open: try again, or the page would stay behind until
        // the next line. A closed stream refreshes when it reopens.
        if (streaming() && retry === null) {
          retry = setTimeout(function () { retry = null; refresh(); }, refetchWait.next());
        }
      })
      .finally(function () {
        refreshing = false;
        if (again) { again = false; refresh(); }
      });
  }

  // ----- the event stream -----------------------------------------------------------------
  function connect() {
    reopen = null;
    if (refused) { return; }
    stream = new EventSource("/stream");
    heard = Date.now();
    stream.addEventListener("beat", function () { heard = Date.now(); setConn(true); });
    stream.addEventListener("head", function (ev) {
      heard = Date.now();
      setConn(true);
      if (parseInt(ev.data, 10) !== head()) { refresh(); }
    });
    stream.addEventListener("problem", function () { refresh(); });
    stream.onopen = function () { heard = Date.now(); reopenWait.reset(); setConn(true); refresh(); flush(); };
    stream.onerror = function () {
      setConn(false);
      if (stream) { stream.close(); stream = null; }
      if (reopen === null && !refused) { reopen = setTimeout(ask, reopenWait.next()); }
    };
  }

  // Before reopening the stream, one plain request: a refused key is told apart from a server
  // that is away (an EventSource cannot say which).
  function ask() {
    reopen = null;
    if (refused) { return; }
    fetchText("/fragment/state").then(connect, function (failed) {
      if (failed && failed.status === 401) { keyRefused(); } else if (failed && failed.status) { connect(); }
      else if (!refused) { reopen = setTimeout(ask, reopenWait.next()); }
    });
  }
  connect();

  // A stream can stall without closing (a phone that lost its network, a laptop lid closed): the
  // server sends a beat on a fixed period, and a page that has heard nothing for two beats says it
  // is not connected and opens its stream again.
  var BEAT = (parseFloat(body.getAttribute("data-beat")) || 15) * 1000;
  setInterval(function () {
    if (stream === null || refused || Date.now() - heard <= 2 * BEAT + 500) { return; }
    setConn(false);
    stream.close();
    stream = null;
    if (reopen === null) { reopen = setTimeout(ask, reopenWait.next()); }
  }, Math.min(1000, BEAT / 2));

  // ----- presses ---------------------------------------------------------------------------
  document.body.addEventListener("htmx:configRequest", function (ev) {
    var form = ev.detail.elt;
    if (form && form.matches && form.matches("form.press, form.confirm")) {
      form.setAttribute("data-pressed", new Date().toISOString());  // the moment of the press
    }
    if (form && form.matches && form.matches("form.press")) {
      // Each press its own key, kept with it if it is queued: a press sent again because its
      // answer was lost (a dropped connection, a server stopped mid-press) is answered from the
      // line it wrote, never written twice. A question's confirmation carries the same key.
      // A second press of a step just recorded, with nothing typed since (a double click whose
      // first answer came back before the second click), carries the first press's key: the
      // server answers from the line already written, never a second line or a refusal that
      // replaces "recorded". (A press still on its way is not sent twice: hx-sync drops it.)
      var again = form.getAttribute("data-recorded-key");
      var since = Date.now() - parseInt(form.getAttribute("data-recorded-at") || "0", 10);
      var key = again && since < 3000 ? again : pressKey();
      form.setAttribute("data-press-key", key);
      ev.detail.parameters.press_key = key;
      inFlight = keyOf(form.closest("details.step"));
    }
    if (form && form.matches && form.matches("form.press, form.confirm") && form.getAttribute("data-seal") !== "1") {
      var sent = {};
      new FormData(form).forEach(function (v, k) { sent[k] = v; });
      sent.press_key = ev.detail.parameters.press_key || sent.press_key;
      if (sent.press_key && sent.seal !== "1") {
        var all = loadSending();
        var stepKey = form.matches("form.press") ? keyOf(form.closest("details.step")) : (answerAt ? answerAt.key : null);
        all[sent.press_key] = {params: sent, pressed_at: form.getAttribute("data-pressed"), key: stepKey};
        try { localStorage.setItem(SENDING, JSON.stringify(all)); } catch (e) { /* full: not kept */ }
      }
    }
    if (form && form.matches && form.matches("form.press, form.reveal")) {
      fading++;
      keepRefusal(keyOf(form.closest("details.step")));
      result.innerHTML = "";
      result.className = "result";
      placeBeside(form);
      lastPressed = form;
    }
  });

  // A press htmx did not take (its form not yet given its handler, say) would otherwise be
  // submitted by the browser itself: a plain reload of the page carrying what was typed, and
  // nothing recorded. It is stopped, and the person told, beside the step, that nothing was sent.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    if (ev.defaultPrevented || !form.matches || !form.matches("form.press, form.confirm, form.reveal")) { return; }
    ev.preventDefault();
    fading++;
    if (form.matches("form.press")) { placeBeside(form); }
    result.textContent = "Not recorded: the page was being refreshed as you pressed, so nothing was sent. " +
      "What you typed is kept; press again.";
    result.className = "result refused";
    inView();
  });

  document.body.addEventListener("htmx:afterRequest", function (ev) {
    var form = ev.detail.elt;
    if (form && form.matches && form.matches("form.press")) { setTimeout(function () { inFlight = null; }, 0); }
    // An answer came back (a request cut off by an unload has no status): the press is no longer
    // on its way. One that failed to reach the server is queued by htmx:sendError.
    if (form && form.matches && form.matches("form.press, form.confirm") && ev.detail.xhr && ev.detail.xhr.status) {
      sendingDone(ev.detail.requestConfig && ev.detail.requestConfig.parameters.press_key);
    }
  });

  document.body.addEventListener("htmx:sendError", function (ev) {
    var form = ev.detail.elt;
    if (!form || !form.matches || !form.matches("form.press, form.confirm")) { return; }
    setConn(false);
    var pressed = form.getAttribute("data-pressed") || new Date().toISOString();
    if (form.getAttribute("data-seal") === "1") {
      var at = form.querySelector('input[name="at"]');
      if (at && !at.value) { at.value = pressed; }
      result.textContent = "Not connected: the onset was not sealed, and a seal is never queued. Its time is " +
        "filled in; press again when the connection is back.";
      result.className = "result refused";
      inView();
      return;
    }
    var params = {};
    new FormData(form).forEach(function (v, k) { params[k] = v; });
    if (!params.press_key) { params.press_key = form.getAttribute("data-press-key") || pressKey(); }
    sendingDone(params.press_key);
    var items = loadQueue();
    items.push({params: params, pressed_at: pressed});
    saveQueue(items);
    items[items.length - 1].key = answerAt ? answerAt.key : null;
    saveQueue(items);
    result.textContent = "Not connected: queued with this browser's time (" + shownTime(pressed) + "); it will " +
      "be sent and recorded late when the connection is back.";
    result.className = "result warning";
    inView();
    forget(form);
    form.reset();
    var d = form.closest("details");
    if (d) { d.open = false; }
  });

  document.body.addEventListener("day60-recorded", function (ev) {
    var form = ev.target;
    if (form && form.matches && form.matches("form.press")) {
      forget(form);
      form.reset();
      form.setAttribute("data-recorded-key", form.getAttribute("data-press-key") || "");
      form.setAttribute("data-recorded-at", String(Date.now()));
      var d = form.closest("details");
      if (d) {
        // The step closes: the focus goes to its summary first (a focused button hidden by the
        // close would drop it to the page's body); if the step is then gone, the refresh moves it
        // to the step now in its place.
        var summary = d.querySelector("summary");
        var had = d.contains(document.activeElement) || document.activeElement === document.body;
        d.open = false;
        if (summary && had) { summary.focus({preventScroll: true}); }
      }
    }
  });

  document.body.addEventListener("click", function (ev) {
    if (ev.target && ev.target.matches && ev.target.matches("button.dismiss-kept")) {
      var kept = ev.target.closest(".kept");
      var before = kept && kept.previousElementSibling;
      if (kept) { kept.parentNode.removeChild(kept); }
      var back = before && before.querySelector("summary");
      if (back) { back.focus(); }
    }
    if (ev.target && ev.target.matches && ev.target.matches("button.dismiss")) {
      var wasQuestion = asking();
      var what = wasQuestion ? result.querySelector("form.confirm").getAttribute("data-what") : null;
      result.innerHTML = "";
      result.className = "result";
      if (wasQuestion) {
        // The question is answered "no": the page says so where the question was (a blank box
        // read as lost), and the person dismisses that in turn.
        var line = document.createElement("span");
        line.textContent = "Not recorded: you chose not to record " + (what || "it") + ".";
        result.appendChild(dismissible("status", [line]));
        said.textContent = "Not recorded, as you chose.";
        inView();
      } else if (answer.classList.contains("pinned")) { unpin(); home.appendChild(answer); }
      var back = lastPressed && document.contains(lastPressed) && lastPressed.querySelector("button[type=submit]");
      (back || document.getElementById("steps") || document.getElementById("state")).focus();
      flush();
    }
  });

  // A confirmation on the page (of a queued press or of one just made) holds the queue: its answer
  // would replace the question unseen. Once it is answered, the queue goes on.
  function asking() { return !!result.querySelector("form.confirm"); }
  result.addEventListener("htmx:afterSwap", function () { if (!asking()) { setTimeout(flush, 0); } });

  function flush() {
    var items = loadQueue();
    if (refused || flushing || asking() || !items.length) { return; }
    flushing = true;
    var item = items[0];
    var form = new URLSearchParams(item.params);
    form.set("csrf", csrf);
    form.set("pressed_at", item.pressed_at);
    form.set("sent_at", new Date().toISOString());
    fetch("/press", {method: "POST", body: form, credentials: "same-origin", headers: {"HX-Request": "true"}})
      .then(function (response) {
        return response.text().then(function (text) {
          if (response.status === 401) { keyRefused(); throw new Error("join again"); }
          setConn(true);  // the server answered
          var rest = loadQueue();
          rest.shift();
          saveQueue(rest);
          var step = findStep(item.key);
          var recorded = (response.headers.get("hx-trigger") || "").indexOf("day60-recorded") >= 0;
          if (recorded && item.key) {
            // Recorded (or found recorded): the draft it was sent from goes, as after a press.
            var all = typed();
            delete all[item.key];
            keep(all);
            var pressed = step && step.querySelector("form.press");
            if (pressed) { pressed.reset(); step.open = false; }
          }
          if (step) { placeBeside(step.querySelector("form") || step); } else { answerAt = {key: item.key}; }
          htmx.swap(result, text, {swapStyle: "innerHTML"});
          // Each queued press's "recorded" stays on screen while the rest are sent, not only the last.
          var tpl = document.createElement("template");
          tpl.innerHTML = earlier.join("");
          result.insertBefore(tpl.content, result.firstChild);
          if (recorded) { Array.prototype.forEach.call(result.querySelectorAll(".ok"), function (d) {
            if (earlier.indexOf(d.outerHTML) < 0) { earlier.push(d.outerHTML); } }); }
          if (!loadQueue().length) { earlier = []; }
          result.className = "result";
          placeAnswer();
          inView();
        });
      })
      .then(function () { flushing = false; flush(); },
            function () { flushing = false; if (!refused) { setConn(false); } });
  }

  // ----- what is typed survives a reload (this tab only) ------------------------------------
  function typed() { try { return JSON.parse(sessionStorage.getItem(TYPED) || "{}"); } catch (e) { return {}; } }
  function keep(all) { try { sessionStorage.setItem(TYPED, JSON.stringify(all)); } catch (e) { /* full: not kept */ } }
  function forget(form) {
    var d = form.closest("details.step");
    if (!d) { return; }
    var all = typed();
    delete all[keyOf(d)];
    keep(all);
  }
  document.addEventListener("input", function (ev) {
    var d = ev.target && ev.target.closest && ev.target.closest("#state details.step");
    if (!d || ev.target.type === "hidden" || !ev.target.name) { return; }
    var pressForm = d.querySelector("form.press");
    if (pressForm) { pressForm.removeAttribute("data-recorded-key"); }  // typed anew: a press of its own
    var all = typed(), values = {};
    d.querySelectorAll("input, select").forEach(function (el) {
      if (el.type !== "hidden" && el.name) { values[el.name] = el.type === "checkbox" ? el.checked : el.value; }
    });
    all[keyOf(d)] = {open: true, values: values};
    keep(all);
  }, true);
  (function () {
    var all = typed();
    if (Object.keys(all).length) { restore({kept: all, focus: null, anchor: null, seqs: null}); }
  })();

  // This browser's reading of a moment, as the page shows every time: in the exercise's zone,
  // with its offset ("2026-03-03 14:02:07 -05:00").
  function shownTime(iso) {
    var parts = {};
    try {
      new Intl.DateTimeFormat("en-CA", {timeZone: body.getAttribute("data-zone") || "UTC", year: "numeric",
        month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23",
        timeZoneName: "longOffset"}).formatToParts(new Date(iso)).forEach(function (p) { parts[p.type] = p.value; });
    } catch (e) { return iso; }
    return parts.year + "-" + parts.month + "-" + parts.day + " " + parts.hour + ":" + parts.minute + ":" +
      parts.second + " " + ((parts.timeZoneName || "").replace("GMT", "") || "+00:00");
  }

  // ----- keys: n and p move between the steps ---------------------------------------------
  document.addEventListener("keydown", function (ev) {
    if (ev.ctrlKey || ev.altKey || ev.metaKey || (ev.key !== "n" && ev.key !== "p")) { return; }
    var t = ev.target;
    if (t && (t.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))) { return; }
    var summaries = Array.prototype.slice.call(document.querySelectorAll("#state details.step summary"));
    if (!summaries.length) { return; }
    var here = t && t.closest ? t.closest("details.step") : null;
    var i = here ? summaries.indexOf(here.querySelector("summary")) : -1;
    var j = ev.key === "n" ? i + 1 : (i < 0 ? summaries.length - 1 : i - 1);
    j = Math.max(0, Math.min(summaries.length - 1, j));
    ev.preventDefault();
    summaries[j].focus();
  });

  (function () {
    // Presses that were on their way when the page was last unloaded (a reload just after a
    // press): their answer never came, so each is queued with its key and sent once more; the
    // server answers from its line if it had arrived, and records it late if not.
    var was = loadSending(), keys = Object.keys(was);
    if (!keys.length) { return; }
    var items = loadQueue();
    var queued = {};
    items.forEach(function (i) { queued[i.params.press_key] = 1; });
    keys.forEach(function (k) {
      if (!queued[k] && was[k].pressed_at) { items.push({params: was[k].params, pressed_at: was[k].pressed_at, key: was[k].key}); }
    });
    localStorage.removeItem(SENDING);
    saveQueue(items);
    result.textContent = "A press made just before this page was reloaded was not confirmed as recorded: it is " +
      "being sent again, once (if it had arrived, the answer says so).";
    result.className = "result warning";
  })();
  saveQueue(loadQueue());
  // The queue is sent while the stream is open (its reopening sends it too): a server that is
  // away is not asked every two seconds.
  flusher = setInterval(function () { if (streaming()) { flush(); } }, 2000);
})();
