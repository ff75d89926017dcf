import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const API_BASE = process.env.RUNPOD_API_BASE ?? "https://rest.runpod.io/v1";
const API_KEY = process.env.RUNPOD_API_KEY ?? "";

async function runpod<T>(path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(`${API_BASE}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${API_KEY}`, "Content-Type": "application/json" },
  });
  if (!res.ok) throw new Error(`runpod ${res.status}: ${(await res.json()).message}`);
  return (await res.json()) as T;
}

const server = new McpServer({ name: "runpod", version: "1.0.0" });

server.tool("list-pods", { computeType: z.string().optional() }, async ({ computeType }) => {
  const params = new URLSearchParams();
  if (computeType) params.set("computeType", computeType);
  params.set("includeMachine", "true");
  const pods = await runpod<any[]>(`/pods?${params.toString()}`);
  return { content: [{ type: "text", text: pods.map((p) => `${p.id} ${p.desiredStatus}`).join("\n") }] };
});

server.tool("stop-pod", { podId: z.string() }, async ({ podId }) => {
  await runpod(`/pods/${podId}/stop`, { method: "POST" });
  return { content: [{ type: "text", text: "stopped" }] };
});

// runpod(`/pods/${podId}/reset`) was removed
server.tool("billing", {}, async () => {
  const rows = await runpod<any[]>("/billing/endpoints?bucketSize=day");
  return { content: [{ type: "text", text: JSON.stringify(rows) }] };
});
