// At the table: the chat form clears after a message is taken, and the browser's
// Notification API tells a player whose tab is hidden when the turn bar's data-your-move flips to yes.
(function () {
  "use strict";

  // The chat form: cleared once the server took the message (an error keeps the text to fix).
  document.addEventListener("htmx:after:request", function (evt) {
    var form = evt.target && evt.target.closest && evt.target.closest("#chat-form");
    var ctx = evt.detail && evt.detail.ctx;
    var status = ctx && ctx.response && ctx.response.status;
    if (form && status && status < 400) form.reset();
  });

  // Browser notifications: a button asks for permission; then a hidden tab gets one notification
  // each time "your move" turns on.
  function yourMove() {
    var bar = document.getElementById("turnbar");
    return bar ? bar.dataset.yourMove === "yes" : false;
  }
  var was = false;
  function setUpButton() {
    var button = document.getElementById("browser-notify");
    var state = document.getElementById("browser-notify-state");
    if (!button || !("Notification" in window)) return;
    function show() {
      button.hidden = Notification.permission !== "default";
      if (state) state.textContent = Notification.permission === "granted" ? "Browser notifications are on while this tab is open."
        : Notification.permission === "denied" ? "This browser blocks notifications for this site." : "";
    }
    button.addEventListener("click", function () {
      Notification.requestPermission().then(show);
    });
    show();
  }
  document.addEventListener("htmx:ws:after:message:incoming", function () {
    var now = yourMove();
    if (now && !was && document.hidden && "Notification" in window && Notification.permission === "granted") {
      try {
        new Notification("Starboard: your move", { body: document.title.replace(/^● Your move – /, ""), tag: "starboard-your-move" });
      } catch (e) { /* some browsers allow notifications only from a service worker */ }
    }
    was = now;
  });
  document.addEventListener("DOMContentLoaded", function () {
    was = yourMove();
    setUpButton();
  });

  // While the page is open and visible, tell the server now and then: nobody is notified of a move
  // they are looking at.
  var socket = null;
  function seen() {
    if (socket && socket.readyState === 1 && !document.hidden) socket.send(JSON.stringify({ type: "seen" }));
  }
  document.addEventListener("htmx:ws:after:connection", function (evt) {
    socket = evt.detail && evt.detail.connection && evt.detail.connection.socket;
  });
  document.addEventListener("visibilitychange", seen);
  setInterval(seen, 60000);
})();
