// Passkeys for a profile (templates/profile/*): a form with data-passkey="register" makes one (a
// new profile when it has a name field, else one more device of the signed-in profile), and
// data-passkey="signin" signs in with one. Both speak to the REST ceremony endpoints
// (/api/v1/profiles/passkeys/...), options then verify; refusals are shown in the page's message
// region, and a new profile's recovery codes are written into #recovery-codes (shown once).
(function () {
  "use strict";
  function toBytes(text) {
    var b64 = text.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var raw = atob(b64), out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out.buffer;
  }
  function toText(buffer) {
    var bytes = new Uint8Array(buffer), raw = "";
    for (var i = 0; i < bytes.length; i++) raw += String.fromCharCode(bytes[i]);
    return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function say(message, level) {
    var region = document.getElementById("flash");
    if (!region) return;
    var p = document.createElement("p");
    p.className = "flash flash-" + (level || "info");
    p.setAttribute("role", level === "error" ? "alert" : "status");
    p.textContent = message;
    region.replaceChildren(p);
  }
  async function post(path, body) {
    var r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify(body || {}),
    });
    var data = await r.json().catch(function () { return {}; });
    if (!r.ok) {
      var reason = (data.detail && data.detail.reason) || ("refused (" + r.status + ")");
      throw new Error(reason);
    }
    return data;
  }
  function creation(o) {
    o.challenge = toBytes(o.challenge);
    o.user.id = toBytes(o.user.id);
    (o.excludeCredentials || []).forEach(function (c) { c.id = toBytes(c.id); });
    return o;
  }
  function request(o) {
    o.challenge = toBytes(o.challenge);
    (o.allowCredentials || []).forEach(function (c) { c.id = toBytes(c.id); });
    return o;
  }
  function asJson(cred) {
    var r = cred.response, response = { clientDataJSON: toText(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toText(r.attestationObject);
      if (r.getTransports) response.transports = r.getTransports();
    } else {
      response.authenticatorData = toText(r.authenticatorData);
      response.signature = toText(r.signature);
      if (r.userHandle) response.userHandle = toText(r.userHandle);
    }
    return {
      id: cred.id, rawId: toText(cred.rawId), type: cred.type, response: response,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      authenticatorAttachment: cred.authenticatorAttachment || undefined,
    };
  }
  function showCodes(codes) {
    var box = document.getElementById("recovery-codes");
    if (!box || !codes) return false;
    var list = box.querySelector("[data-codes]");
    list.replaceChildren();
    codes.forEach(function (code) {
      var li = document.createElement("li"), c = document.createElement("code");
      c.textContent = code;
      li.appendChild(c);
      list.appendChild(li);
    });
    box.hidden = false;
    var title = box.querySelector("h2");
    if (title) title.focus();
    return true;
  }
  async function register(form) {
    var name = form.elements.namedItem("name");
    var label = form.elements.namedItem("label");
    var begun = await post("/api/v1/profiles/passkeys/register/options", name ? { name: name.value } : {});
    var cred = await navigator.credentials.create({ publicKey: creation(begun.publicKey) });
    var done = await post("/api/v1/profiles/passkeys/register/verify", {
      ceremony: begun.ceremony, credential: asJson(cred), label: label ? label.value : "",
    });
    if (showCodes(done.recovery_codes)) {
      form.hidden = true;
      say("Profile " + done.profile.name + " made, and this browser signed in.", "info");
    } else {
      window.location.assign("/me/devices");
    }
  }
  async function signin() {
    var begun = await post("/api/v1/profiles/passkeys/signin/options", {});
    var cred = await navigator.credentials.get({ publicKey: request(begun.publicKey) });
    await post("/api/v1/profiles/passkeys/signin/verify", { ceremony: begun.ceremony, credential: asJson(cred) });
    window.location.assign("/me");
  }
  document.addEventListener("submit", function (event) {
    var form = event.target.closest && event.target.closest("form[data-passkey]");
    if (!form) return;
    event.preventDefault();
    if (!window.PublicKeyCredential) {
      say("This browser cannot use passkeys; sign in with a recovery code instead.", "error");
      return;
    }
    var button = form.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    var work = form.dataset.passkey === "signin" ? signin() : register(form);
    work.catch(function (error) {
      say(error && error.name === "NotAllowedError" ? "The passkey was not made or used (cancelled or timed out)." : String(error.message || error), "error");
    }).finally(function () { if (button) button.disabled = false; });
  });
})();
