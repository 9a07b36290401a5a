// An error that names a field marks that field. The server's page message carries the
// field (data-field on #flash's error); the form last submitted gets aria-invalid="true" on the
// input that field came from, the message next to it (aria-describedby) and the focus. Without
// JavaScript the page message names the field instead.
(function () {
  "use strict";
  let lastForm = null;

  function baseName(name) {
    return name.replace(/^p\./, "").split(":")[0].replace(/\[\]$/, "");
  }

  function clear(form) {
    form.querySelectorAll("[aria-invalid='true']").forEach(function (el) {
      el.removeAttribute("aria-invalid");
      const id = el.dataset.fieldError;
      if (id) {
        const note = document.getElementById(id);
        if (note) note.remove();
        const rest = (el.getAttribute("aria-describedby") || "").split(" ").filter(function (x) { return x && x !== id; });
        if (rest.length) el.setAttribute("aria-describedby", rest.join(" ")); else el.removeAttribute("aria-describedby");
        delete el.dataset.fieldError;
      }
    });
  }

  function inputFor(form, field) {
    let best = null;
    let bestLength = -1;
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.type === "hidden" || el.type === "submit") return;
      const base = baseName(el.name);
      const first = field.split(".")[0];
      const hit = base === field || field.indexOf(base + ".") === 0 || base === first + "_json";
      if (hit && base.length > bestLength) { best = el; bestLength = base.length; }
    });
    return best;
  }

  function mark() {
    const flash = document.querySelector("#flash .flash-error[data-field]");
    if (!flash || !lastForm || !lastForm.isConnected) return;
    const field = flash.dataset.field;
    const input = inputFor(lastForm, field);
    if (!input || input.getAttribute("aria-invalid") === "true") return;
    const label = input.closest("label");
    const name = label ? label.firstChild.textContent.trim() : field;
    const copy = flash.cloneNode(true);  // the message without controls added to it (a dismiss button)
    copy.querySelectorAll("button").forEach(function (b) { b.remove(); });
    const escape = function (t) { return t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); };
    // The message without its field's name, in code (amount: …) or in words (Fore shield: …).
    const text = copy.textContent.trim().replace(new RegExp("^" + escape(field) + ": "), "")
      .replace(new RegExp("^" + escape(name) + ": "), "");
    const note = document.createElement("span");
    note.className = "field-error";
    note.id = "field-error-" + Math.random().toString(36).slice(2, 10);
    note.textContent = name + ": " + text;
    (label || input).insertAdjacentElement("afterend", note);
    input.setAttribute("aria-invalid", "true");
    input.dataset.fieldError = note.id;
    input.setAttribute("aria-describedby", ((input.getAttribute("aria-describedby") || "") + " " + note.id).trim());
    input.focus();
  }

  document.addEventListener("submit", function (event) {
    lastForm = event.target;
    clear(lastForm);
  }, true);
  document.addEventListener("DOMContentLoaded", function () {
    const region = document.getElementById("flash");
    if (region) new MutationObserver(mark).observe(region, { childList: true, subtree: true });
  });
})();
