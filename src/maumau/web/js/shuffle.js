// The verifiable shuffle (record.md): SHA-256("<seed>:<salt>") must equal the commitment.

/** A server message, parsed with every `seed` kept exact, as a decimal string: seeds are
 * 63-bit integers, and a JavaScript number holds integers exactly only up to 2^53, so
 * JSON.parse alone turns 3782297404641497623 into 3782297404641497600 and the shuffle
 * check fails. The reviver reads the seed's own digits from the text. */
export function parseMessage(text) {
  return JSON.parse(text, (key, value, context) => {
    if (key !== "seed" || typeof value !== "number") return value;
    if (context?.source !== undefined) return context.source;
    if (Number.isSafeInteger(value)) return String(value);
    throw new Error("a seed beyond 2^53 cannot be read exactly here");
  });
}

export async function verifyShuffle(seed, salt, commitment) {
  if (!commitment || salt == null || !crypto?.subtle) return null;
  const bytes = new TextEncoder().encode(`${seed}:${salt}`);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment;
}
