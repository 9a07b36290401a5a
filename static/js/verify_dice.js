// Dice anyone can verify (issue 16): recompute every recorded die from the revealed seed with the
// browser's own WebCrypto HMAC-SHA256, the same derivation as app/rules/dice.py (_uniform): roll
// `index` of action `seq` is the first 64-bit big-endian word of
// HMAC(seed, "<battle>:<seq>:<index>:d<sides>:<attempt>") below the largest multiple of `sides`
// under 2**64, mod sides, plus one. The seed is also checked against the SHA-256 shown since the start.
(() => {
  "use strict";
  const source = document.getElementById("dice-record");
  const result = document.getElementById("verify-result");
  if (!source || !result) return;
  const record = JSON.parse(source.textContent);
  const encoder = new TextEncoder();

  const hexBytes = (hex) => new Uint8Array(hex.match(/../g).map((h) => parseInt(h, 16)));
  const toHex = (buf) => Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");

  async function face(key, message, sides) {
    const big = BigInt(sides);
    const limit = ((1n << 64n) / big) * big;
    for (let attempt = 0; ; attempt += 1) {
      const digest = new DataView(await crypto.subtle.sign("HMAC", key, encoder.encode(`${message}:${attempt}`)));
      for (let offset = 0; offset < 32; offset += 8) {
        const value = digest.getBigUint64(offset, false);
        if (value < limit) return Number(value % big) + 1;
      }
    }
  }

  function mark(row, ok, text) {
    const cell = row.querySelector(".check");
    const sign = document.createElement("span");
    sign.setAttribute("aria-hidden", "true");
    sign.textContent = ok ? "✓" : "✗ ";
    const words = document.createElement("span");
    words.textContent = text;
    if (ok) words.className = "visually-hidden";
    cell.replaceChildren(sign, words);
    cell.classList.add(ok ? "ok" : "bad");
    if (!ok) row.classList.add("mismatch");
  }

  async function verify() {
    if (!window.crypto || !crypto.subtle) {
      result.textContent = "This browser cannot check here: WebCrypto works only on a secure (https or localhost) page. Use `python -m app.cli verify` on the battle file instead.";
      result.className = "flash flash-error";
      return;
    }
    result.textContent = "Checking…";
    const seed = hexBytes(record.seed);
    const hashOk = toHex(await crypto.subtle.digest("SHA-256", seed)) === record.seed_sha256;
    const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const wrong = [];
    const rows = document.querySelectorAll("#dice-rows tr[data-index]");
    for (const [n, roll] of record.rolls.entries()) {
      const made = await face(key, `${record.battle}:${roll.seq}:${roll.index}:d${roll.sides}`, roll.sides);
      const ok = made === roll.value;
      if (!ok) wrong.push(`action #${roll.seq} die ${roll.index + 1} (d${roll.sides}${roll.purpose ? ", " + roll.purpose : ""}): recorded ${roll.value}, the seed makes ${made}`);
      if (rows[n]) mark(rows[n], ok, ok ? "matches" : `the seed makes ${made}`);
    }
    const hashText = hashOk
      ? "The revealed seed matches the SHA-256 shown since the start."
      : "The revealed seed does NOT match the SHA-256 shown since the start.";
    if (!wrong.length && hashOk) {
      result.textContent = `All ${record.rolls.length} dice match the revealed seed, recomputed in this browser. ${hashText}`;
      result.className = "flash flash-info verified";
    } else {
      result.textContent = `${wrong.length} of ${record.rolls.length} dice do not match: ${wrong.join("; ")}. ${hashText}`;
      result.className = "flash flash-error not-verified";
    }
  }

  verify().catch((err) => {
    result.textContent = `The check could not run: ${err}`;
    result.className = "flash flash-error";
  });
})();
