// The battle clock in the turn bar (partials/turn_clock.html): counts each running seat's time down
// between frames (the server's frame says when it runs out), and pings this seat's browser once per
// wait when its deadline comes near — only while the tab is open and hidden, only if the seat wants
// it (#ping-settings), and only with the browser's permission (the button in "Notify me").
(function () {
  "use strict";

  function prefs() {
    var form = document.getElementById("ping-settings");
    return form ? form.dataset : null;
  }

  // Whether this seat wants a ping of `kind` ("your_move", "deadline") in the browser.
  window.starboardPings = function (kind) {
    var p = prefs();
    if (!p) return true;
    return p.browser === "yes" && (kind === "deadline" ? p.deadline === "yes" : p.yourMove === "yes");
  };

  function words(s) {
    s = Math.max(0, Math.round(s));
    if (s >= 3600) { var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60); return h + " h" + (m ? " " + m + " min" : ""); }
    if (s >= 60) { var mm = Math.floor(s / 60), r = s % 60; return mm + " min" + (r ? " " + r + " s" : ""); }
    return s + " s";
  }

  var skew = 0; // the server's clock minus this browser's, from the last frame
  var seenNow = null;

  function ping(title, body, tag) {
    if (!("Notification" in window) || Notification.permission !== "granted" || !document.hidden) return;
    try { new Notification(title, { body: body, tag: tag }); } catch (e) { /* service-worker-only browsers */ }
  }

  function remembered(key) {
    try {
      if (localStorage.getItem(key)) return true;
      localStorage.setItem(key, "1");
    } catch (e) { /* private mode: ping anyway, once per page */ }
    return false;
  }

  function tick() {
    var bar = document.getElementById("turn-clock");
    if (!bar) return;
    if (bar.dataset.now !== seenNow) {
      seenNow = bar.dataset.now;
      skew = parseFloat(bar.dataset.now) - Date.now() / 1000;
    }
    var now = Date.now() / 1000 + skew;
    var reminder = parseFloat(bar.dataset.reminder || "0");
    var p = prefs();
    var me = p ? p.me : null;
    var battle = document.querySelector("[data-battle]");
    bar.querySelectorAll(".clock-seat.running").forEach(function (seat) {
      var due = parseFloat(seat.dataset.due);
      if (isNaN(due)) return;
      var left = due - now;
      var shown = seat.querySelector(".clock-left");
      if (shown) shown.textContent = words(left);
      if (seat.dataset.participant === me && reminder > 0 && left > 0 && left <= reminder
          && window.starboardPings("deadline")
          && !remembered("starboard-deadline:" + (battle ? battle.dataset.battle : "") + ":" + seat.dataset.wait)) {
        ping("Starboard: deadline soon", words(left) + " left to act", "starboard-deadline");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tick();
    setInterval(tick, 1000);
  });
})();
