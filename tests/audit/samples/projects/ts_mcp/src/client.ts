// Thin REST client shared by every tool.
const DEFAULT_BASE = process.env.RUNPOD_REST_URL ?? "https://rest.runpod.io/v1";

export class RunpodError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

export class RunpodClient {
  private readonly baseUrl: string;

  constructor(private readonly apiKey: string, baseUrl: string = DEFAULT_BASE) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
  }

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.apiKey}`, "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      let msg = text;
      try { msg = JSON.parse(text).message ?? text; } catch { /* not json */ }
      throw new RunpodError(res.status, msg);
    }
    return (text ? JSON.parse(text) : undefined) as T;
  }

  get<T>(path: string) { return this.request<T>("GET", path); }
  post<T>(path: string, body?: unknown) { return this.request<T>("POST", path, body); }
  patch<T>(path: string, body: unknown) { return this.request<T>("PATCH", path, body); }
  del(path: string) { return this.request<void>("DELETE", path); }
}
