// Dice anyone can verify: recompute every recorded die from the revealed seed with the
// browser's own WebCrypto HMAC-SHA256, the same derivation as app/rules/dice.py (_uniform): roll
// `index` of action `seq` is the first 64-bit big-endian word of
// HMAC(seed, "<battle>:<seq>:<index>:d<sides>:<attempt>") below the largest multiple of `sides`
// under 2**64, mod sides, plus one. Each seed is also checked against the SHA-256 it was committed to.
// A battle imported from a file has more than one source: the dice up to the import were rolled in
// the battle the file came from (its id and seed); a source whose seed is not revealed yet leaves
// its dice unchecked, said as such, never as wrong.
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

  // What each source is called in the result: this battle, or the one its early dice came from.
  const named = (src) => (src.own ? "this battle's seed" : `the seed of battle ${src.battle} (actions up to #${src.through_seq}, rolled there before the import)`);

  async function keys() {
    return Promise.all(
      record.sources.map(async (src) => {
        if (!src.seed) return { src, key: null, hashOk: null };
        const seed = hexBytes(src.seed);
        const hashOk = toHex(await crypto.subtle.digest("SHA-256", seed)) === src.seed_sha256;
        const key = await crypto.subtle.importKey("raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
        return { src, key, hashOk };
      }),
    );
  }

  async function verify() {
    if (!window.crypto || !crypto.subtle) {
      result.textContent = "This browser cannot check here: WebCrypto works only on a secure (https or localhost) page. Use `python -m app.cli verify` on the battle file instead.";
      result.className = "flash flash-error";
      return;
    }
    result.textContent = "Checking…";
    const sources = await keys();
    const wrong = [];
    const waiting = new Map(); // source index → how many of its dice cannot be checked yet
    const rows = document.querySelectorAll("#dice-rows tr[data-index]");
    for (const [n, roll] of record.rolls.entries()) {
      const { src, key } = sources[roll.source];
      if (!key) {
        waiting.set(roll.source, (waiting.get(roll.source) || 0) + 1);
        continue;
      }
      const made = await face(key, `${src.battle}:${roll.seq}:${roll.index}:d${roll.sides}`, roll.sides);
      const ok = made === roll.value;
      if (!ok) wrong.push(`action #${roll.seq} die ${roll.index + 1} (d${roll.sides}${roll.purpose ? ", " + roll.purpose : ""}): recorded ${roll.value}, the seed makes ${made}`);
      if (rows[n]) mark(rows[n], ok, ok ? "matches" : `the seed makes ${made}`);
    }
    const single = sources.length === 1;
    const hashes = sources
      .filter((s) => s.key)
      .map(({ src, hashOk }) =>
        single
          ? hashOk
            ? "The revealed seed matches the SHA-256 shown since the start."
            : "The revealed seed does NOT match the SHA-256 shown since the start."
          : `${named(src)[0].toUpperCase()}${named(src).slice(1)} ${hashOk ? "matches" : "does NOT match"} its SHA-256 shown since that battle's start.`,
      );
    const hashOk = sources.every((s) => s.hashOk !== false);
    const unchecked = [...waiting].map(
      ([i, count]) =>
        `${count} dice up to action #${sources[i].src.through_seq} were rolled in battle ${sources[i].src.battle} before this battle was imported; that battle had not ended when its file was made, so its seed is not revealed and they cannot be checked yet.`,
    );
    const skipped = [...waiting.values()].reduce((a, b) => a + b, 0);
    const checked = record.rolls.length - skipped;
    const seeds = single ? "the revealed seed" : "the revealed seeds";
    let head = `All ${record.rolls.length} dice match ${seeds}, recomputed in this browser.`;
    if (wrong.length) head = `${wrong.length} of ${checked} dice do not match: ${wrong.join("; ")}.`;
    else if (skipped) head = `${checked} of ${record.rolls.length} dice checked: all match ${seeds}, recomputed in this browser.`;
    result.textContent = [head, ...unchecked, ...hashes].join(" ");
    if (wrong.length || !hashOk) result.className = "flash flash-error not-verified";
    else result.className = skipped ? "flash flash-info partly-verified" : "flash flash-info verified";
  }

  verify().catch((err) => {
    result.textContent = `The check could not run: ${err}`;
    result.className = "flash flash-error";
  });
})();
