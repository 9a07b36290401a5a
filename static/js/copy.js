// Copy buttons: a button with data-copy="<id of a readonly input>" copies that input's
// text with the clipboard API; where it is missing or refused (no secure context, no permission)
// the text is selected instead, to copy by hand. The button's status says which ("Copied" /
// "Selected — press Ctrl+C"), read out by screen readers, and the row shows it until the next copy.
(function () {
  "use strict";
  function say(button, text, ok) {
    var note = document.getElementById(button.getAttribute("aria-describedby") || "");
    document.querySelectorAll(".copy.is-copied").forEach(function (b) { b.classList.remove("is-copied"); });
    button.classList.toggle("is-copied", ok);
    if (note) note.textContent = text;
  }
  function select(input) {
    input.focus();
    input.select();
    input.setSelectionRange(0, input.value.length);
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy]");
    if (!button) return;
    var input = document.getElementById(button.dataset.copy);
    if (!input) return;
    var fallback = function () {
      select(input);
      var copied = false;
      try { copied = document.execCommand && document.execCommand("copy"); } catch (e) { copied = false; }
      say(button, copied ? "✓ Copied" : "Selected — press Ctrl+C (⌘C) to copy", copied);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(function () { say(button, "✓ Copied", true); }, fallback);
    } else {
      fallback();
    }
  });
})();
