// Escape hatch for endpoints the client does not wrap yet. The URL is whatever the operator configured.
const RAW_API = process.env.RUNPOD_RAW_API_URL;

export async function rawGet(path: string): Promise<unknown> {
  const res = await fetch(`${RAW_API}${path}`, { headers: { Authorization: `Bearer ${process.env.RUNPOD_API_KEY}` } });
  return res.json();
}
