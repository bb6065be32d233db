// The verifiable shuffle (record.md): SHA-256("<seed>:<salt>") must equal the commitment.

export async function verifyShuffle(seed, salt, commitment) {
  if (!commitment || salt == null || !crypto?.subtle) return null;
  const bytes = new TextEncoder().encode(`${seed}:${salt}`);
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment;
}
