import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RunpodClient } from "../client.js";

export function registerPodTools(server: McpServer, client: RunpodClient) {
  server.tool("list-pods", "List pods", {}, async () => {
    const pods = await client.get<any[]>("/pods");
    return { content: [{ type: "text", text: JSON.stringify(pods, null, 2) }] };
  });

  server.tool("get-pod", "Get one pod", { podId: z.string() }, async ({ podId }) => {
    const pod = await client.get(`/pods/${podId}`);
    return { content: [{ type: "text", text: JSON.stringify(pod) }] };
  });

  server.tool("stop-pod", "Stop a pod", { podId: z.string() }, async ({ podId }) => {
    await client.post(`/pods/${podId}/stop`);
    return { content: [{ type: "text", text: `stopped ${podId}` }] };
  });

  server.tool("delete-pod", "Terminate a pod", { podId: z.string() }, async ({ podId }) => {
    await client.del(`/pods/${podId}`);
    return { content: [{ type: "text", text: `deleted ${podId}` }] };
  });
}
