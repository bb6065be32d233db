// The HTTP API (docs/protocol.md): JSON in and out; the seat token only in a header.

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export async function api(method, path, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let reply;
  try {
    reply = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError("network", String(err), 0);
  }
  if (reply.status === 204) return null;
  const data = await reply.json().catch(() => null);
  if (!reply.ok) {
    const error = data?.error || {};
    throw new ApiError(error.code || "http", error.message || `HTTP ${reply.status}`, reply.status);
  }
  return data;
}
