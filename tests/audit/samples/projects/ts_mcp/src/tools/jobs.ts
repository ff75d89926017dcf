import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

// The serverless job API: not the REST API this server otherwise wraps.
export function registerJobTools(server: McpServer, apiKey: string) {
  server.tool("run-sync", "Run a job and wait", { endpointId: z.string(), input: z.any() },
    async ({ endpointId, input }) => {
      const res = await fetch(`https://api.runpod.ai/v2/${endpointId}/runsync`, {
        method: "POST",
        headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
        body: JSON.stringify({ input }),
      });
      return { content: [{ type: "text", text: await res.text() }] };
    });
}
