// Thin fetch wrapper around the REST API (v1) with retries on 429/5xx.
const API_BASE = process.env.RUNPOD_API_BASE ?? "https://rest.runpod.io/v1";
const API_V2 = process.env.RUNPOD_API_V2 ?? "https://api.runpod.io/v2";
export const JOB_API = "https://api.runpod.ai/v2";

export class RunpodError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== "") params.append(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

async function send(url: string, init: RequestInit, attempts = 3): Promise<Response> {
  let last: Response | undefined;
  for (let i = 0; i < attempts; i++) {
    last = await fetch(url, init);
    if (last.status !== 429 && last.status < 500) return last;
    await new Promise((r) => setTimeout(r, 500 * 2 ** i));
  }
  return last!;
}

export async function runpodRequest<T>(method: string, path: string, body?: unknown, query?: Query): Promise<T> {
  const response = await send(`${API_BASE}${withQuery(path, query)}`, {
    method,
    headers: {
      Authorization: `Bearer ${process.env.RUNPOD_API_KEY}`,
      "Content-Type": "application/json",
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const err = (await response.json().catch(() => ({}))) as { message?: string };
    throw new RunpodError(response.status, err.message ?? response.statusText);
  }
  return response.status === 204 ? (undefined as T) : ((await response.json()) as T);
}

// v2 calls (migrated so far: logs and catalog)
export async function v2Request<T>(path: string): Promise<T> {
  const response = await fetch(`${API_V2}${path}`, {
    headers: { Authorization: `Bearer ${process.env.RUNPOD_API_KEY}` },
  });
  if (!response.ok) {
    const problem = (await response.json()) as { detail?: string };
    throw new RunpodError(response.status, problem.detail ?? response.statusText);
  }
  return (await response.json()) as T;
}
