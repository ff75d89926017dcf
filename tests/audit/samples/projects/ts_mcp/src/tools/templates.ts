import { z } from "zod";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { RunpodClient } from "../client.js";

export function registerTemplateTools(server: McpServer, client: RunpodClient) {
  server.tool("list-templates", "List templates", {}, async () => {
    const t = await client.get("/templates");
    return { content: [{ type: "text", text: JSON.stringify(t) }] };
  });

  server.tool("create-template", "Create a template", { name: z.string(), image: z.string() },
    async ({ name, image }) => {
      const t = await client.post("/templates", { name, image, containerDiskInGb: 10 });
      return { content: [{ type: "text", text: JSON.stringify(t) }] };
    });
}
