import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RunpodClient } from "../client.js";

type Volume = { id: string; name: string; size: number; dataCenterId: string };

export function registerVolumeTools(server: McpServer, client: RunpodClient) {
  server.tool("list-volumes", "List network volumes", {}, async () => {
    const vols = await client.get<Volume[]>("/networkvolumes");
    return { content: [{ type: "text", text: vols.map((v) => `${v.id} ${v.name}`).join("\n") }] };
  });

  server.tool("create-volume", "Create a network volume",
    { name: z.string(), size: z.number(), dataCenterId: z.string() },
    async (args) => {
      const v = await client.post<Volume>("/networkvolumes", args);
      return { content: [{ type: "text", text: v.id }] };
    });
}
